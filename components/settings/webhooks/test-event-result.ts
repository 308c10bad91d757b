import type { ManualDeliveryRecord, TestDeliveryRecord } from '@/lib/webhooks/webhook-schemas'
import { formatDuration } from '../format'
import type { Status } from '../status-message'

/** What "Send test event" or "Redeliver" came to, as one sentence, from the record the API answers too. */
export function describeAttempt(what: string, url: string, attempt: ManualDeliveryRecord | TestDeliveryRecord): NonNullable<Status> {
  // A test event bypasses the subscription's filter; say which real events pass it.
  const filter = 'filter' in attempt ? ` Real events it receives: ${attempt.filter.summary}` : ''
  if (attempt.result === 'succeeded') {
    return { kind: 'success', text: `${what} delivered: ${url} answered ${attempt.response_status} in ${formatDuration(attempt.duration_ms)}.${filter}` }
  }
  const why = attempt.error ?? (attempt.response_status ? `The receiver answered ${attempt.response_status}.` : 'No response.')
  return { kind: 'error', text: `${what} failed: ${why} The attempt is in the deliveries log.${filter}` }
}
