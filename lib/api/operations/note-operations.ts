import { declareOperation, operationPaths } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'
import { articlePathSchema } from '../../articles/article-schemas.ts'
import { createNoteSchema, listNotesQuerySchema, noteListSchema, noteSchema, type NoteRecord } from '../../articles/note-schemas.ts'

const note: NoteRecord = {
  note_id: 'not_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  article_id: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  kind: 'move',
  body: 'The second source is missing.',
  author: { id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e', name: 'Edith Hale' },
  move: { from_state: 'in-review', to_state: 'draft' },
  created_at: '2026-11-20T22:41:00.000Z',
}

const notFound = {
  code: 'not_found' as const,
  when: "No article with this id in the token's newsroom.",
  detail: "No article with id 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom.",
}

export const listNotesOperation = declareOperation({
  method: 'GET',
  path: '/v1/articles/{article_id}/notes',
  params: articlePathSchema,
  query: listNotesQuerySchema,
  operationId: 'listArticleNotes',
  summary: 'List an article’s notes',
  tags: ['Articles'],
  scope: 'articles:read',
  description: [
    'The article’s thread, newest first: review notes that came with a workflow move (`note` on a transition; `move` says which), free comments, and take-overs of its edit lease. Notes are plain text, never HTML.',
    '',
    '**Paging:** `limit` 1 to 100 (default 20) and `offset`; every page has `next_cursor`: send it back as `cursor` (no `offset`) for the next, older page.',
  ].join('\n'),
  requestParams: { path: articlePathSchema, query: listNotesQuerySchema },
  success: { status: 200, description: 'A page of notes, newest first.', schema: noteListSchema, examples: { page: { summary: 'One note', value: { items: [note], total: 1, limit: 20, offset: 0, next_offset: null, next_cursor: null } } } },
  problems: [notFound],
})

export const createNoteOperation = declareOperation({
  method: 'POST',
  path: '/v1/articles/{article_id}/notes',
  params: articlePathSchema,
  body: createNoteSchema,
  operationId: 'createArticleNote',
  summary: 'Comment on an article',
  tags: ['Articles'],
  scope: 'articles:write',
  description: 'Adds a free comment to the article’s thread, under the token owner’s name. It changes nothing of the article (no version, no webhook), so an edit lease does not block it. Markup tags are removed: a note is plain text.',
  requestParams: { path: articlePathSchema },
  requestBody: { examples: { comment: { summary: 'A comment', value: { body: 'Legal has read it; fine to publish.' } } } },
  success: { status: 201, description: 'The note.', schema: noteSchema, examples: { comment: { summary: 'A comment', value: { ...note, kind: 'comment', move: null, body: 'Legal has read it; fine to publish.' } } } },
  problems: [
    notFound,
    { code: 'validation_failed', when: 'body is missing, empty once markup is removed, or longer than 2,000 characters.', detail: 'The request body has invalid fields; see errors.', errors: validationErrors(createNoteSchema, { body: '<b></b>' }) },
  ],
})

export const notePaths = operationPaths([listNotesOperation, createNoteOperation])
