import type { Metadata } from 'next'
import Link from 'next/link'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { getPortalActor } from '@/lib/auth/session'
import { getWebhook } from '@/lib/webhooks/manage-subscriptions'
import { deliveryLogRetentionDays } from '@/lib/webhooks/delivery-log-retention'
import { EventQueueNotice } from '@/components/settings/event-queue-notice'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { WebhookDeliveries } from '@/components/settings/webhooks/webhook-deliveries'

// Titled by the endpoint: several subscriptions' tabs are told apart by where they send.
export async function generateMetadata(props: { params: Promise<{ webhook_id: string }> }): Promise<Metadata> {
  const actor = await getPortalActor()
  const { webhook_id: webhookId } = await props.params
  const subscription = actor && (await getWebhook(actor, webhookId).catch(() => null))
  return { title: subscription ? `Webhook ${endpointName(subscription.url)}` : 'Webhook' }
}

/** The endpoint as people name it: host and path, without the scheme. */
function endpointName(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`
  } catch {
    return url
  }
}

export default async function WebhookDeliveriesPage(props: {
  params: Promise<{ webhook_id: string }>
  searchParams: Promise<Record<string, string | string[] | undefined>>
}) {
  const admin = await getSettingsAdmin()
  if (!admin) return <SettingsForbidden />
  const { webhook_id: webhookId } = await props.params
  const actor = await getPortalActor()
  const subscription = actor && (await getWebhook(actor, webhookId).catch(() => null))
  const created = (await props.searchParams).created !== undefined
  return (
    <section aria-labelledby="page-heading">
      <p>
        <Link href="/settings/webhooks">← Webhooks</Link>
      </p>
      <h1 id="page-heading" className="break-anywhere">{subscription ? endpointName(subscription.url) : 'Webhook'}</h1>
      {actor && subscription && <EventQueueNotice actor={actor} kinds={subscription.events} />}
      <WebhookDeliveries
        webhookId={webhookId}
        // The operator's setting, read here on the server: what the nightly prune deletes by.
        retentionDays={deliveryLogRetentionDays()}
        initialStatus={created ? { kind: 'success', text: 'Subscription created. Send a test event to check that your receiver accepts it.' } : null}
      />
    </section>
  )
}
