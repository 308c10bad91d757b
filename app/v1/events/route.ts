import { listEventsOperation } from '@/lib/api/operations/event-operations'
import { conditionalAnswer, queryKey, renderJson } from '@/lib/api/conditional-response'
import { apiRoute, withApi } from '@/lib/api/with-api'
import { eventsPageReader } from '@/lib/events/list-events'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  // Pages are kept under the newsroom's event generation, which every committed event and every
  // pruning advances (lib/events/event-generation.ts): a cached page is the database's answer.
  GET: withApi({ ...listEventsOperation, cacheGeneration: 'events' }, async ({ actor, query, request, cachedRead }) => {
    // Permission and cursor are checked before the cache is asked.
    const read = eventsPageReader(actor, query)
    const rendered = await cachedRead(`events:${queryKey(query)}`, async () => {
      const page = await read()
      // Assigned, not spread: spreading would decode the rendered bytes back into text.
      return Object.assign(renderJson({ items: page.items, limit: page.limit, next_cursor: page.nextCursor }), { transient: page.tail })
    })
    return conditionalAnswer(request, rendered)
  }),
})
