import { listApiRequestsOperation } from '@/lib/api/operations/request-log-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { pageRecord } from '@/lib/pagination'
import { listApiRequests, toApiRequestRecord } from '@/lib/request-log/list-api-requests'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listApiRequestsOperation, async ({ actor, query }) => {
    const page = await listApiRequests(actor, query)
    return jsonResponse(pageRecord(page, toApiRequestRecord))
  }),
})
