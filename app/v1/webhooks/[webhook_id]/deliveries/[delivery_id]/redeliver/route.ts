import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { redeliver, toManualDeliveryRecord } from '@/lib/webhooks/manual-deliveries'
import { deliveryPathSchema } from '@/lib/webhooks/webhook-schemas'

const params = deliveryPathSchema

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi({ scope: 'webhooks:manage', params }, async ({ actor, params }) => {
    return jsonResponse(toManualDeliveryRecord(await redeliver(actor, params.delivery_id, params.webhook_id)))
  }),
})
