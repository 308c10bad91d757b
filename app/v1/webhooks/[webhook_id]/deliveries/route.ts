import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { listDeliveries, toDeliveryRecord } from '@/lib/webhooks/deliveries-log'
import { listDeliveriesQuerySchema, webhookPathSchema } from '@/lib/webhooks/webhook-schemas'
import { pageRecord } from '@/lib/pagination'

const params = webhookPathSchema

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi({ scope: 'webhooks:manage', params, query: listDeliveriesQuerySchema }, async ({ actor, params, query }) => {
    const page = await listDeliveries(actor.tenant.id, params.webhook_id, query)
    return jsonResponse(pageRecord(page, toDeliveryRecord))
  }),
})
