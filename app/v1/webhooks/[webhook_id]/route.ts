import { deleteWebhookOperation, getWebhookOperation, updateWebhookOperation } from '@/lib/api/operations/webhook-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { deleteWebhook, getWebhook, updateWebhook } from '@/lib/webhooks/manage-subscriptions'
import { toWebhookRecord } from '@/lib/webhooks/webhook-record'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(getWebhookOperation, async ({ actor, params }) => {
    return jsonResponse(toWebhookRecord(await getWebhook(actor, params.webhook_id)))
  }),
  PATCH: withApi(updateWebhookOperation, async ({ actor, params, body }) => {
    return jsonResponse(toWebhookRecord(await updateWebhook(actor, params.webhook_id, body)))
  }),
  DELETE: withApi(deleteWebhookOperation, async ({ actor, params }) => {
    await deleteWebhook(actor, params.webhook_id)
    return new Response(null, { status: 204 })
  }),
})
