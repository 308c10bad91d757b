import { z } from 'zod'
import { withoutNul } from '../validation.ts'

export const maxNoteLength = 2_000

/**
 * A note is plain text, never HTML: markup tags are taken out, control characters (but line
 * breaks and tabs) removed, line breaks normalised and the ends trimmed. What is stored is shown
 * as text everywhere (React escapes it), so a note can never carry markup to a page.
 */
export function sanitiseNoteText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/<\/?[a-zA-Z!][^>]*>/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .trim()
}

export const noteTextSchema = z
  .string()
  .transform(sanitiseNoteText)
  .pipe(
    z
      .string()
      .min(1, 'note must not be empty (markup is removed: a note is plain text).')
      .max(maxNoteLength, `note must be at most ${maxNoteLength} characters.`),
  )
  .meta({ description: `Plain text, up to ${maxNoteLength} characters; markup tags are removed (a note is never HTML).`, example: 'The second source is missing.' })

export const noteKinds = ['comment', 'move', 'take_over', 'lock_override', 'media_withheld'] as const

export const noteSchema = z
  .object({
    note_id: z.string().meta({ example: 'not_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    article_id: z.string().meta({ example: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    kind: z.enum(noteKinds).meta({
      description:
        '`comment`: a free comment. `move`: the note that came with a workflow move (`move` says which). `take_over`: someone took over the edit lease. `lock_override`: a write went through someone else’s lease with `override_lock`. `media_withheld`: the service withheld one of the article’s images when its licence expired (author null).',
    }),
    body: z.string().meta({ description: 'Plain text.' }),
    author: z.object({ id: z.string(), name: z.string() }).nullable().meta({ description: 'Who wrote it; null if the user was deleted.' }),
    move: z
      .object({ from_state: z.string(), to_state: z.string() })
      .nullable()
      .meta({ description: 'The move the note came with, or null.' }),
    created_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'ArticleNote' })

export type NoteRecord = z.infer<typeof noteSchema>

export const noteListSchema = z
  .object({
    items: z.array(noteSchema),
    total: z.number().int().min(0),
    limit: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable(),
    next_cursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next (older) page; null on the last page.' }),
  })
  .meta({ id: 'ArticleNoteList' })

export const listNotesQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int('limit must be a whole number.').min(1, 'limit must be 1 to 100.').max(100, 'limit must be 1 to 100.').default(20),
    offset: z.coerce.number().int('offset must be a whole number.').min(0, 'offset must be 0 or more.').max(10_000_000).default(0),
    cursor: withoutNul(z.string().min(1).max(1_024)).optional().meta({ description: "The previous page's `next_cursor` (older notes). Not with `offset`." }),
  })
  .meta({ id: 'ListArticleNotesQuery' })

export const createNoteSchema = z.strictObject({ body: noteTextSchema }).meta({ id: 'CreateArticleNote' })
