import { deliverAttempt, type AttemptOutcome } from '../../lib/webhooks/deliver-attempt.ts'
import { sendDisableNotice } from '../../lib/webhooks/disable-notice.ts'
import { disableSubscriptionAfterFailures } from '../../lib/webhooks/disable-subscription.ts'
import { maxDeliveryAttempts, retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { inngest } from '../client.ts'
import { deliveryRequestedEvent } from '../events.ts'

/**
 * Delivers one webhook on the contract's schedule: at once, then after 1 min, 5 min,
 * 30 min, 2 h, 12 h and 24 h. Every attempt is its own step that returns its outcome
 * instead of throwing, so Inngest's own step retries (kept for database trouble) never
 * multiply the schedule; the waits are durable sleeps named after the retry they precede.
 * When the seventh attempt fails, the subscription is disabled and its owner e-mailed.
 */
export const deliverWebhook = inngest.createFunction(
  {
    id: 'deliver-webhook',
    name: 'Deliver a webhook',
    triggers: [deliveryRequestedEvent],
    idempotency: 'event.data.delivery_id',
    // Spare one receiver a burst: a backlog to one subscription goes out a few at a time.
    concurrency: { key: 'event.data.subscription_id', limit: 5 },
    retries: 10,
  },
  async ({ event, step }) => {
    const deliveryId = event.data.delivery_id
    let outcome: AttemptOutcome | undefined
    for (let attempt = 1; attempt <= maxDeliveryAttempts; attempt++) {
      const waitBefore = retrySchedule[attempt - 2]
      if (waitBefore) await step.sleep(waitBefore.id, waitBefore.duration)
      const waitAfter = retrySchedule[attempt - 1]
      outcome = await step.run(`attempt-${attempt}`, () => deliverAttempt(deliveryId, { kind: 'scheduled', retryDelayMs: waitAfter?.ms ?? null }))
      if (outcome.result !== 'failed') return { deliveryId, result: outcome.result, attempts: attempt }
    }
    const last = { responseStatus: outcome?.responseStatus ?? null, error: outcome?.error ?? null }
    const notice = await step.run('disable-subscription', () => disableSubscriptionAfterFailures(deliveryId, last))
    if (notice) await step.run('email-owner', () => sendDisableNotice(notice))
    return { deliveryId, result: 'failed' as const, attempts: maxDeliveryAttempts, disabled: notice !== null }
  },
)
