import type { WebhookSubscription } from '../db/generated/client.ts'

/** Headers that go with a newly created subscription. */
export function webhookLocation(subscription: Pick<WebhookSubscription, 'id'>): Record<string, string> {
  return { Location: `/v1/webhooks/${subscription.id}` }
}
