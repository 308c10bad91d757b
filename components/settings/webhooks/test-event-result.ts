import { formatDuration } from '../format'
import type { Status } from '../status-message'

type Outcome = { result: 'succeeded' | 'failed' | 'stopped' | 'held'; responseStatus: number | null; durationMs: number; error: string | null }

/** What "Send test event" or "Redeliver" came to, as one sentence. */
export function describeAttempt(what: string, url: string, outcome: Outcome): NonNullable<Status> {
  if (outcome.result === 'succeeded') {
    return { kind: 'success', text: `${what} delivered: ${url} answered ${outcome.responseStatus} in ${formatDuration(outcome.durationMs)}.` }
  }
  const why = outcome.error ?? (outcome.responseStatus ? `The receiver answered ${outcome.responseStatus}.` : 'No response.')
  return { kind: 'error', text: `${what} failed: ${why} The attempt is in the deliveries log.` }
}
