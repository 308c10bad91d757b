import { rotateSecretOperation } from '@/lib/api/operations/webhook-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { rotateWebhookSecret } from '@/lib/webhooks/rotate-secret'
import { standardWebhooksSecret } from '@/lib/webhooks/sign-payload'
import { toWebhookRecord } from '@/lib/webhooks/webhook-record'
import { type RotatedSecretRecord } from '@/lib/webhooks/webhook-schemas'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi(rotateSecretOperation, async ({ actor, params }) => {
    const { subscription, secret } = await rotateWebhookSecret(actor, params.webhook_id)
    const record: RotatedSecretRecord = { webhook: toWebhookRecord(subscription), secret, standard_webhooks_secret: standardWebhooksSecret(secret) }
    return jsonResponse(record)
  }),
})
