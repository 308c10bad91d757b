import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { rotateWebhookSecret } from '@/lib/webhooks/rotate-secret'
import { standardWebhooksSecret } from '@/lib/webhooks/sign-payload'
import { toWebhookRecord } from '@/lib/webhooks/webhook-record'
import { webhookPathSchema, type RotatedSecretRecord } from '@/lib/webhooks/webhook-schemas'

const params = webhookPathSchema

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi({ scope: 'webhooks:manage', params }, async ({ actor, params }) => {
    const { subscription, secret } = await rotateWebhookSecret(actor, params.webhook_id)
    const record: RotatedSecretRecord = { webhook: toWebhookRecord(subscription), secret, standard_webhooks_secret: standardWebhooksSecret(secret) }
    return jsonResponse(record)
  }),
})
