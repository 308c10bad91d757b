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
  return `${who} ${moveWords(move)}${note}`
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
