import { redeliverOperation } from '@/lib/api/operations/webhook-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { redeliver, toManualDeliveryRecord } from '@/lib/webhooks/manual-deliveries'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi(redeliverOperation, async ({ actor, params }) => {
    return jsonResponse(toManualDeliveryRecord(await redeliver(actor, params.delivery_id, params.webhook_id)))
  }),
})
