/**
 * How long a change waits before the events feed (oldest first, by occurred_at) shows it:
 * longer than any write's transaction, so that a change committed late (its time set before a
 * later one's commit) is never skipped by a mirror that has already read past it.
 * SYNC_SETTLE_MS, 10 s by default. The articles feed needs no wait: it goes by the writing
 * transaction (lib/articles/changes-feed.ts).
 */
export function syncSettleMs(): number {
  return Number(process.env.SYNC_SETTLE_MS ?? 10_000)
}
