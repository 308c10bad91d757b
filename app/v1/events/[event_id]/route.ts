import { getEventOperation } from '@/lib/api/operations/event-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { getEvent } from '@/lib/events/list-events'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(getEventOperation, async ({ actor, params }) => jsonResponse(await getEvent(actor, params.event_id))),
})
