'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import type { NoteRecord } from '@/lib/articles/note-schemas'
import { statusLabels } from './status-badge'
import { isSendBack, type ApiStatus } from '@/lib/articles/article-status'
import styles from './articles.module.css'

function noteHeading(note: NoteRecord): string {
  const who = note.author?.name ?? 'Someone'
  if (note.kind === 'move' && note.move) {
    const to = note.move.to_state as ApiStatus
    // Unpublishing and a restore from the archive also reach draft, and say where it went like any other move.
    return isSendBack(note.move.from_state as ApiStatus, to) ? `Sent back by ${who}` : `${who}, moving it to ${statusLabels[to]?.toLowerCase() ?? to}`
  }
  return who
}

/** The article's thread: notes that came with moves, comments, take-overs; newest first, plain text. */
export function ArticleNotes({ articleId }: { articleId: string }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  const notes = useQuery(trpc.articles.notes.queryOptions({ article_id: articleId, limit: 20, offset: 0, ...(cursor && { cursor }) }))
  const [body, setBody] = useState('')
  const [failure, setFailure] = useState<string | null>(null)
  const add = useMutation(
    trpc.articles.addNote.mutationOptions({
      onSuccess: async () => {
        setBody('')
        setCursors([])
        await queryClient.invalidateQueries(trpc.articles.notes.pathFilter())
      },
      onError: (error) => setFailure(describePortalError(error).message),
    }),
  )

  return (
    <section className={styles.history} aria-labelledby="notes-heading">
      <h2 id="notes-heading">Notes</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          setFailure(null)
          add.mutate({ article_id: articleId, body })
        }}
      >
        <label htmlFor="new-note">Add a note</label>
        <textarea id="new-note" rows={2} maxLength={2000} value={body} onChange={(event) => setBody(event.target.value)} />
        {failure && <p className="field-error">{failure}</p>}
        <button type="submit" className="secondary" disabled={add.isPending || !body.trim()}>
          {add.isPending ? 'Adding…' : 'Add note'}
        </button>
      </form>
      {notes.data && notes.data.items.length === 0 && <p className="muted">No notes yet.</p>}
      {notes.data && notes.data.items.length > 0 && (
        <ul className={styles.noteList} data-testid="article-notes">
          {notes.data.items.map((note) => (
            <li key={note.note_id}>
              <p className={styles.hint}>
                {noteHeading(note)}, <LocalTime iso={note.created_at} />
              </p>
              <p className={styles.noteBody}>{note.body}</p>
            </li>
          ))}
        </ul>
      )}
      <div className={styles.actions}>
        {cursors.length > 0 && (
          <button type="button" className="secondary" onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer notes
          </button>
        )}
        {notes.data?.next_cursor && (
          <button type="button" className="secondary" onClick={() => setCursors([...cursors, notes.data.next_cursor!])}>
            Older notes
          </button>
        )}
      </div>
    </section>
  )
}
