import { listEventsOperation } from '@/lib/api/operations/event-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { listEvents } from '@/lib/events/list-events'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listEventsOperation, async ({ actor, query }) => {
    const page = await listEvents(actor, query)
    return jsonResponse({ items: page.items, limit: page.limit, next_cursor: page.nextCursor })
  }),
})
