import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { deleteWebhook, getWebhook, updateWebhook } from '@/lib/webhooks/manage-subscriptions'
import { toWebhookRecord } from '@/lib/webhooks/webhook-record'
import { updateWebhookSchema, webhookPathSchema } from '@/lib/webhooks/webhook-schemas'

const params = webhookPathSchema

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi({ scope: 'webhooks:manage', params }, async ({ actor, params }) => {
    return jsonResponse(toWebhookRecord(await getWebhook(actor.tenant.id, params.webhook_id)))
  }),
  PATCH: withApi({ scope: 'webhooks:manage', params, body: updateWebhookSchema }, async ({ actor, params, body }) => {
    return jsonResponse(toWebhookRecord(await updateWebhook(actor, params.webhook_id, body)))
  }),
  DELETE: withApi({ scope: 'webhooks:manage', params }, async ({ actor, params }) => {
    await deleteWebhook(actor, params.webhook_id)
    return new Response(null, { status: 204 })
  }),
})
