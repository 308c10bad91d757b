import { listDeliveriesOperation } from '@/lib/api/operations/webhook-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { listDeliveries, toDeliveryRecord } from '@/lib/webhooks/deliveries-log'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listDeliveriesOperation, async ({ actor, params, query }) => {
    const page = await listDeliveries(actor, params.webhook_id, query)
    return jsonResponse(pageRecord(page, toDeliveryRecord))
  }),
})
