import { createWebhookOperation, listWebhooksOperation } from '@/lib/api/operations/webhook-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { createWebhook, listWebhooks } from '@/lib/webhooks/manage-subscriptions'
import { toWebhookRecord } from '@/lib/webhooks/webhook-record'
import { webhookLocation } from '@/lib/api/resource-headers'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listWebhooksOperation, async ({ actor, query }) => {
    const page = await listWebhooks(actor, query)
    return jsonResponse(pageRecord(page, toWebhookRecord))
  }),
  POST: withApi(createWebhookOperation, async ({ actor, body }) => {
    const subscription = await createWebhook(actor, body)
    return jsonResponse(toWebhookRecord(subscription), { status: 201, headers: webhookLocation(subscription) })
  }),
})
