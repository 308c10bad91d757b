import { sendTestEventOperation } from '@/lib/api/operations/webhook-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { sendTestEvent, toTestDeliveryRecord } from '@/lib/webhooks/manual-deliveries'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi(sendTestEventOperation, async ({ actor, params, body }) => {
    return jsonResponse(toTestDeliveryRecord(await sendTestEvent(actor, params.webhook_id, body.event)))
  }),
})
