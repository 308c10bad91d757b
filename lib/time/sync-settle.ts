/**
 * How long a change waits before the oldest-first feeds (articles by updated_at, events by
 * occurred_at) show it: longer than any write's transaction, so that a change committed late
 * (its time set before a later one's commit) is never skipped by a mirror that has already read
 * past it. SYNC_SETTLE_MS, 10 s by default.
 */
export function syncSettleMs(): number {
  return Number(process.env.SYNC_SETTLE_MS ?? 10_000)
}
