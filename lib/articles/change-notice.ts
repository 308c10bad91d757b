import type { LastChange } from './watch-article.ts'

/**
 * What an open article page says when someone else's change arrives: who acted and what they
 * did, with the note that went with a move ("Edith Hale sent this back to draft: the second
 * source is missing"). The actor is the one recorded for the version (LastChange), never the
 * article's author or last editor; "Someone" only when no record names anyone.
 */
export function changeNotice(change: LastChange | null, viewerId: string): string {
  const actor = !change?.actor_id ? null : change.actor_id === viewerId ? 'You' : (change.actor_name ?? 'Someone')
  const note = change?.note ? `: ${change.note}` : '.'
  const move = change?.move
  if (!move) return `${actor ?? 'Someone'} ${actor === 'You' ? 'changed this article in another window' : 'edited this article'}.`
  // A publication without an actor is the schedule's own.
  if (!actor && move.to_state === 'published' && !move.schedule_cancelled) return 'This article was published on schedule.'
  const who = actor ?? 'Someone'
  return `${who} ${moveWords(move)}${actor === 'You' ? ' in another window' : ''}${note}`
}

/**
 * A request of this page that writes the article's version (a save, a move, a restore), as the
 * page's request log holds it: on its way, answered (from the version it was sent with to the
 * version it made: approve-and-publish makes two), or failed.
 */
export type PageWrite = { state: 'pending' } | { state: 'done'; from: number; version: number } | { state: 'failed' }

/**
 * Whether a new version the watch reports is news to the page that sees it. Every change is, a
 * colleague's and the viewer's own made in another tab or window alike (that tab's save is as
 * unknown to this page as a colleague's: its form still holds the older version), except the
 * version this page made itself, which the watch often sees before the page's own answer
 * arrives. 'wait': a write of this page is still on its way, and its answer will tell.
 * Who acted does not decide it: one person's two tabs are two editors of the article.
 */
export function changeIsNews(version: number, writes: readonly PageWrite[]): boolean | 'wait' {
  if (writes.some((write) => write.state === 'done' && write.from < version && version <= write.version)) return false
  if (writes.some((write) => write.state === 'pending')) return 'wait'
  return true
}

function moveWords(move: NonNullable<LastChange['move']>): string {
  if (move.schedule_cancelled) return 'cancelled the scheduled publication'
  const { from_state: from, to_state: to } = move
  if (to === 'published' && move.publish_at) return 'scheduled this article to publish'
  if (to === 'published') return 'published this article'
  if (to === 'approved') return 'approved this article'
  if (to === 'archived') return 'archived this article'
  if (to === 'in-review') return from === 'draft' ? 'submitted this for review' : 'returned this to review'
  if (from === 'published') return 'took this article off the site (back to draft)'
  if (from === 'archived') return 'restored this to draft'
  return 'sent this back to draft'
}
