/**
 * Whether this page's own claim on an article's edit lease had lapsed (no heartbeat got through
 * for the lease's length: a laptop asleep, a tab left open overnight) before someone else began
 * editing: then they found the article free and nobody took it over (break70). Judged by the
 * server's clock on both sides, never the browser's, which may be minutes off.
 */

/**
 * Someone else's lease began (`since`) at or after this page's claim ended (`claimEndsAt`), and
 * not by taking over this editor's (`editorId`) live lease: their other window or tab may have
 * kept it live while this page slept, and a take-over of it is a take-over, however long ago
 * this page's own claim ended (break72).
 */
export function leaseBeganAfterClaimEnded(lock: { since: string; taken_over_from_id: string | null }, claimEndsAt: string, editorId: string): boolean {
  return lock.taken_over_from_id !== editorId && Date.parse(lock.since) >= Date.parse(claimEndsAt)
}

/**
 * Someone else's change (its time, `at`) came at or after this page's claim ended. A change
 * recorded without a time is judged by the browser's clock, the best there is for it.
 */
export function changedAfterClaimEnded(change: { at: string | null } | null, claimEndsAt: string, browserNow = Date.now()): boolean {
  return (change?.at ? Date.parse(change.at) : browserNow) >= Date.parse(claimEndsAt)
}
