import type { WebhookView } from '@/lib/trpc/routers/webhooks-router'
import { maxDeliveryAttempts } from '@/lib/webhooks/retry-schedule'
import { LocalTime } from '@/components/local-time'
import { formatDuration } from '../format'
import styles from '../settings.module.css'

export function WebhookStatusBadge({ webhook }: { webhook: WebhookView }) {
  if (webhook.status === 'enabled') return <span className={`${styles.badge} ${styles.ok}`}>Enabled</span>
  if (webhook.status === 'paused') return <span className={`${styles.badge} ${styles.warn}`}>Paused</span>
  return <span className={`${styles.badge} ${styles.danger}`}>Disabled</span>
}

/** Why a subscription is paused or disabled, and since when; nothing while it is enabled. */
export function DisabledExplanation({ webhook }: { webhook: WebhookView }) {
  if (webhook.status === 'paused') return <>Paused: new deliveries wait and go out when you resume it.</>
  if (webhook.status !== 'disabled') return null
  const since = webhook.disabled_at && (
    <>
      {' '}
      on <LocalTime iso={webhook.disabled_at} />
    </>
  )
  if (webhook.disabled_reason === 'delivery_failures') {
    return (
      <>
        Disabled{since} after one delivery failed {maxDeliveryAttempts} times in a row (the first attempt and every retry). No events are sent until it is re-enabled.
      </>
    )
  }
  if (webhook.disabled_reason === 'receiver_gone') return <>Disabled{since} because the receiver answered 410 Gone. No events are sent until it is re-enabled.</>
  return <>Disabled{since}. No events are sent until it is re-enabled.</>
}

export function LastDelivery({ webhook }: { webhook: WebhookView }) {
  const last = webhook.last_delivery
  if (!last) return <span className="muted">No deliveries yet</span>
  return (
    <span>
      <span className={`${styles.badge} ${last.succeeded ? styles.ok : styles.danger}`}>
        {last.response_status ?? 'No response'}
      </span>{' '}
      <span className={styles.small}>
        <LocalTime iso={last.at} /> · {formatDuration(last.duration_ms)}
      </span>
      {last.error && <span className={`${styles.small} ${styles.block} muted`}>{last.error}</span>}
    </span>
  )
}
