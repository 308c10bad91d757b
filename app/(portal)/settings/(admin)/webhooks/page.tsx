import type { Metadata } from 'next'
import Link from 'next/link'
import { getPortalActor } from '@/lib/auth/session'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { retrySchedule } from '@/lib/webhooks/retry-schedule'
import { EventQueueNotice } from '@/components/settings/event-queue-notice'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { WebhookList } from '@/components/settings/webhooks/webhook-list'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Webhooks' }

// The contract's waits as people read them: "1 min, 5 min, … and 24 h".
const waits = retrySchedule.map(({ ms }) => (ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`))
const retryWaits = `${waits.slice(0, -1).join(', ')} and ${waits.at(-1)}`

export default async function WebhooksPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const admin = await getSettingsAdmin()
  const actor = await getPortalActor()
  if (!admin || !actor) return <SettingsForbidden />
  const saved = typeof (await searchParams).saved === 'string'
  return (
    <section aria-labelledby="page-heading">
      <div className={styles.headerRow}>
        <h1 id="page-heading">Webhooks</h1>
        <Link href="/settings/webhooks/new" className={styles.buttonLink}>
          Add subscription
        </Link>
      </div>
      <p className={styles.intro}>
        Subscriptions send the events you choose to your own systems as signed HTTP POST requests. A delivery that fails is retried after{' '}
        {retryWaits}; when the last retry fails too, the subscription is disabled and its owner is e-mailed.
      </p>
      <EventQueueNotice actor={actor} />
      <WebhookList initialStatus={saved ? { kind: 'success', text: 'Saved the subscription.' } : null} />
    </section>
  )
}
