import type { ApiStatus } from './article-status.ts'

// The History's entries, without the reads that make them (article-history.ts), so the portal's
// components can use them.

export type ArticleHistoryEntry = {
  kind: 'move'
  id: string
  from_state: ApiStatus
  to_state: ApiStatus
  /** Null when the system acted (a scheduled publication) or the user was deleted. */
  actor: { id: string; name: string } | null
  at: string
  /** Set on the row that scheduled a publication: approved → published, due at this instant. */
  publish_at: string | null
  /** True on the row that cancelled the schedule in publish_at (the article stayed approved). */
  schedule_cancelled: boolean
  /** The review note that came with the move, if any. */
  note: string | null
}

/** A change of who edits the article: a take-over of someone's lease, or a write over it. */
export type ArticleEditingEntry = {
  kind: 'take_over' | 'lock_override'
  id: string
  actor: { id: string; name: string } | null
  at: string
  note: string
}

export type ArticleHistoryItem = ArticleHistoryEntry | ArticleEditingEntry

export const isMove = (item: ArticleHistoryItem): item is ArticleHistoryEntry => item.kind === 'move'

