import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { pageRecord } from '@/lib/pagination'
import { listApiRequests, toApiRequestRecord } from '@/lib/request-log/list-api-requests'
import { listApiRequestsQuerySchema } from '@/lib/request-log/request-log-schemas'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi({ scope: 'admin', query: listApiRequestsQuerySchema }, async ({ actor, query }) => {
    const page = await listApiRequests(actor.tenant.id, query)
    return jsonResponse(pageRecord(page, toApiRequestRecord))
  }),
})
