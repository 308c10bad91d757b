import { countAttempts, deliverAttempt, receiverIsGone, type AttemptOutcome } from '../../lib/webhooks/deliver-attempt.ts'
import { sendDisableNotice } from '../../lib/webhooks/disable-notice.ts'
import { disableSubscription, type DisableReason } from '../../lib/webhooks/disable-subscription.ts'
import { maxDeliveryAttempts, retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { inngest } from '../client.ts'
import { deliveryRequestedEvent } from '../events.ts'

/**
 * Delivers one webhook on the contract's schedule: at once, then after 1 min, 5 min,
 * 30 min, 2 h, 12 h and 24 h. Every attempt is its own step that returns its outcome
 * instead of throwing, so Inngest's own step retries (kept for database trouble) never
 * multiply the schedule; the waits are durable sleeps named after the retry they precede.
 * When the seventh attempt fails, the subscription is disabled and its owner e-mailed; a
 * receiver answering 410 Gone gets the same at once. A 429 or 503 with Retry-After stretches
 * the next wait to at least what it asked (never adds attempts).
 */
export const deliverWebhook = inngest.createFunction(
  {
    id: 'deliver-webhook',
    name: 'Deliver a webhook',
    triggers: [deliveryRequestedEvent],
    // No function-level idempotency key: runs are deduplicated by event id (the fan-out sends
    // the delivery id, the sweeper `<delivery id>-g<generation>`), so a re-requested delivery
    // can start a new run while a duplicate request of the same generation cannot.
    // Spare one receiver a burst: a backlog to one subscription goes out a few at a time.
    concurrency: { key: 'event.data.subscription_id', limit: 5 },
    retries: 10,
  },
  async ({ event, step }) => {
    const deliveryId = event.data.delivery_id
    const generation = event.data.generation ?? 0
    // A re-requested delivery (stuck, or held while paused) continues the schedule where it stopped.
    // It always gets at least one more attempt (manual redeliveries count as earlier attempts too).
    const first = generation === 0 ? 1 : Math.min(maxDeliveryAttempts, (await step.run('count-earlier-attempts', () => countAttempts(deliveryId))) + 1)
    let outcome: AttemptOutcome | undefined
    for (let attempt = first; attempt <= maxDeliveryAttempts; attempt++) {
      const waitBefore = attempt > first ? retrySchedule[attempt - 2] : undefined
      if (waitBefore) {
        const asked = outcome?.nextDelayMs ?? 0
        await step.sleep(waitBefore.id, asked > waitBefore.ms ? `${Math.ceil(asked / 1000)}s` : waitBefore.duration)
      }
      const waitAfter = retrySchedule[attempt - 1]
      outcome = await step.run(`attempt-${attempt}`, () => deliverAttempt(deliveryId, { kind: 'scheduled', retryDelayMs: waitAfter?.ms ?? null, generation }))
      if (outcome.result !== 'failed') return { deliveryId, result: outcome.result, attempts: attempt }
      if (receiverIsGone(outcome)) return disable('receiver_gone', attempt, outcome)
    }
    return disable('delivery_failures', maxDeliveryAttempts, outcome)

    async function disable(reason: DisableReason, attempts: number, last: AttemptOutcome | undefined) {
      const notice = await step.run('disable-subscription', () =>
        disableSubscription(deliveryId, reason, { attempts, responseStatus: last?.responseStatus ?? null, error: last?.error ?? null }),
      )
      if (notice) await step.run('email-owner', () => sendDisableNotice(notice))
      return { deliveryId, result: 'failed' as const, attempts, disabled: notice !== null, ...(reason === 'receiver_gone' && { reason }) }
    }
  },
)
