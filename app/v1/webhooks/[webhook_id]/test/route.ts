import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { sendTestEvent, toManualDeliveryRecord } from '@/lib/webhooks/manual-deliveries'
import { webhookPathSchema } from '@/lib/webhooks/webhook-schemas'

const params = webhookPathSchema

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi({ scope: 'webhooks:manage', params }, async ({ actor, params }) => {
    return jsonResponse(toManualDeliveryRecord(await sendTestEvent(actor, params.webhook_id)))
  }),
})
