import { generationCounter } from '../generation-counter.ts'
import { isEventKind } from './event-kinds.ts'
import type { RecordedEvent } from './record-event.ts'

/**
 * The newsroom's event generation: what cached pages of the events API
 * (lib/api/response-cache.ts) are kept under. Events change only by being added (commitChange
 * advances it once they commit, before the writer answers) and by retention pruning
 * (pruneEvents advances it for every newsroom it deleted from), so a page cached under the
 * current generation is exactly what the database would answer. Apart from the article
 * generation (lib/articles/article-totals.ts) because user changes emit events too, and an
 * event says nothing new about articles' lists.
 *
 * With REDIS_URL it lives in Redis, shared by every instance; without it (one instance), in
 * process memory. The cache's expiry bounds what a lost advance can leave stale.
 */
const counter = generationCounter('event', reportRedisDown)

let warnedRedisDown = false

/** The generation now; null when it cannot be read (Redis unreachable), so the caller does not cache. */
export const eventGeneration = (tenantId: string): Promise<string | null> => counter.current(tenantId)

/** Where the generation lives in Redis (undefined without REDIS_URL), to read it in the rate limit's round trip (lib/api/with-api.ts). */
export const eventGenerationRedisKey = (tenantId: string): string | undefined => counter.redisKey(tenantId)

/** The newsrooms whose listed events these committed events change (internal kinds are never listed). */
export function tenantsWithListedEvents(events: RecordedEvent[]): string[] {
  return [...new Set(events.filter((event) => isEventKind(event.kind)).map((event) => event.tenantId))]
}

/** Called once events of these newsrooms have been added or deleted, before anyone is told. */
export const eventsChanged = (tenantIds: Iterable<string>): Promise<void> => counter.advance(tenantIds)

function reportRedisDown(error: Error) {
  if (warnedRedisDown) return
  warnedRedisDown = true
  console.warn(`[event-generation] Redis unreachable (${error.message}); event pages are read from the database until it is back.`)
  setTimeout(() => (warnedRedisDown = false), 60_000).unref()
}
