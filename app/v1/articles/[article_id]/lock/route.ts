import { claimLeaseOperation, releaseLeaseOperation } from '@/lib/api/operations/lease-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { claimEditLease, releaseEditLease } from '@/lib/articles/edit-lease'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi(claimLeaseOperation, async ({ actor, params, query }) => jsonResponse(await claimEditLease(actor, params.article_id, { takeOver: query.take_over }))),
  DELETE: withApi(releaseLeaseOperation, async ({ actor, params }) => {
    await releaseEditLease(actor, params.article_id)
    return new Response(null, { status: 204 })
  }),
})
