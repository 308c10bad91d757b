import type { Delivery, DeliveryStatus } from '../db/generated/client.ts'
import { eventEnvelope } from '../events/event-envelope.ts'
import { createId } from '../ids.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { signingSecrets } from './rotate-secret.ts'
import { sendWebhookRequest, webhookUserAgent, type RequestOutcome } from './send-webhook-request.ts'
import { signPayload, standardSignature } from './sign-payload.ts'
import { metrics } from '../ops/metrics.ts'

/**
 * `scheduled`: an attempt of the automatic schedule by the run of `generation` (0 unless the
 * sweeper re-requested the delivery); `retryDelayMs` is the wait before the next one, null
 * for the last. `manual`: a redelivery or test someone asked for, which may go to a disabled
 * or paused subscription and never changes the schedule.
 */
export type AttemptMode = { kind: 'scheduled'; retryDelayMs: number | null; generation?: number } | { kind: 'manual' }

/** What an attempt came to; plain JSON, so a durable step can return and memoise it. */
export type AttemptOutcome = {
  /** `held`: the subscription is paused; the delivery waits, still pending, until it is resumed. */
  result: 'succeeded' | 'failed' | 'stopped' | 'held'
  attempt: number | null
  responseStatus: number | null
  durationMs: number
  error: string | null
  /** After a failed scheduled attempt: the wait before the next one (the schedule's, or longer if the receiver's Retry-After asked). */
  nextDelayMs?: number | null
}

/**
 * The longest wait a receiver's Retry-After can impose: the schedule's own longest wait,
 * so one answer cannot park a delivery indefinitely.
 */
export const maxRetryAfterMs = 24 * 3_600_000

function stopped(reason: string): AttemptOutcome {
  return { result: 'stopped', attempt: null, responseStatus: null, durationMs: 0, error: reason }
}

/** A receiver that answers 410 Gone has told us to stop: the subscription is disabled at once. */
export function receiverIsGone(outcome: Pick<AttemptOutcome, 'responseStatus'>): boolean {
  return outcome.responseStatus === 410
}

/** The wait before the next scheduled attempt: the schedule's, or the receiver's Retry-After if longer (up to a day). */
function nextDelay(outcome: RequestOutcome, mode: AttemptMode): number | null {
  if (mode.kind !== 'scheduled' || mode.retryDelayMs === null || outcome.ok || receiverIsGone(outcome)) return null
  return Math.max(mode.retryDelayMs, Math.min(outcome.retryAfterMs ?? 0, maxRetryAfterMs))
}

/**
 * The headers of a delivery. X-Service-Delivery and webhook-id stay the same on every retry of
 * one delivery; webhook-timestamp is the attempt's, so receivers can refuse replays by age.
 * `signingSecrets` lists the current secret first: X-Service-Signature uses it alone, and
 * webhook-signature carries one signature per secret, space-separated, as the standard allows.
 */
export function deliveryHeaders(options: { kind: string; deliveryId: string; body: string; signingSecrets: string[]; timestamp: number }): Record<string, string> {
  const [current] = options.signingSecrets
  if (current === undefined) throw new Error('A delivery needs at least one signing secret.')
  return {
    'Content-Type': 'application/json',
    'User-Agent': webhookUserAgent,
    'X-Service-Event': options.kind,
    'X-Service-Delivery': options.deliveryId,
    'X-Service-Signature': signPayload(options.body, current),
    'webhook-id': options.deliveryId,
    'webhook-timestamp': String(options.timestamp),
    'webhook-signature': options.signingSecrets.map((secret) => standardSignature(secret, options.deliveryId, options.timestamp, options.body)).join(' '),
  }
}

/**
 * One attempt of one delivery: checks the delivery is still wanted (a scheduled attempt
 * stops if the subscription was deleted or disabled, or the delivery was settled), signs
 * the envelope with the subscription's current secret, POSTs it, and records the attempt.
 * Delivery failures are results, not exceptions; only infrastructure trouble throws.
 */
export async function deliverAttempt(deliveryId: string, mode: AttemptMode): Promise<AttemptOutcome> {
  const db = systemDb()
  const delivery = await db.delivery.findUnique({ where: { id: deliveryId }, include: { event: true, subscription: true } })
  if (!delivery) return stopped('The delivery no longer exists; its subscription was deleted.')
  if (mode.kind === 'scheduled') {
    if (delivery.status !== 'pending') return stopped(`The delivery is already ${delivery.status}.`)
    if (delivery.runGeneration !== (mode.generation ?? 0)) return stopped('A newer run of this delivery took over.')
    if (delivery.subscription.status === 'paused') {
      await db.delivery.updateMany({ where: { id: deliveryId, status: 'pending', runGeneration: delivery.runGeneration }, data: { heldAt: new Date(), nextAttemptAt: null } })
      return { ...stopped('The subscription is paused; the delivery waits until it is resumed.'), result: 'held' }
    }
    if (delivery.subscription.status !== 'enabled') {
      await db.delivery.updateMany({ where: { id: deliveryId, status: 'pending' }, data: { status: 'failed', nextAttemptAt: null } })
      return stopped('The subscription is disabled.')
    }
  }

  const body = JSON.stringify(eventEnvelope(delivery.event))
  const at = new Date()
  const headers = deliveryHeaders({ kind: delivery.event.kind, deliveryId, body, signingSecrets: signingSecrets(delivery.subscription, at), timestamp: Math.floor(at.getTime() / 1000) })
  const outcome = await sendWebhookRequest({ url: delivery.subscription.url, body, headers })
  const attempt = await recordAttempt(delivery, at, outcome, mode, { headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, body })
  return {
    result: outcome.ok ? 'succeeded' : 'failed',
    attempt,
    responseStatus: outcome.responseStatus,
    durationMs: outcome.durationMs,
    error: outcome.error,
    nextDelayMs: nextDelay(outcome, mode),
  }
}

function statusAfter(delivery: Delivery, outcome: RequestOutcome, mode: AttemptMode): { status: DeliveryStatus; nextAttemptAt: Date | null } {
  if (outcome.ok) return { status: 'succeeded', nextAttemptAt: null }
  if (mode.kind === 'scheduled') {
    const delay = nextDelay(outcome, mode)
    return delay === null ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: new Date(Date.now() + delay) }
  }
  // A failed manual attempt leaves a delivery that is still being retried (or already
  // succeeded once) as it was; anything else has nothing more coming, so it failed.
  if (delivery.status === 'succeeded' || (delivery.status === 'pending' && delivery.nextAttemptAt)) {
    return { status: delivery.status, nextAttemptAt: delivery.nextAttemptAt }
  }
  return { status: 'failed', nextAttemptAt: null }
}

/** How many attempts a delivery has had, scheduled and manual. */
export async function countAttempts(deliveryId: string): Promise<number> {
  return systemDb().deliveryAttempt.count({ where: { deliveryId } })
}

/**
 * Numbers attempts per delivery in the order they happened. A manual redelivery can race a
 * scheduled retry for the same number; the loser takes the next one.
 */
async function recordAttempt(delivery: Delivery, at: Date, outcome: RequestOutcome, mode: AttemptMode, sent: { headers: Record<string, string>; body: string }): Promise<number | null> {
  const db = systemDb()
  for (let tries = 1; ; tries++) {
    try {
      return await db.$transaction(async (tx) => {
        const last = await tx.deliveryAttempt.aggregate({ where: { deliveryId: delivery.id }, _max: { attempt: true } })
        const attempt = (last._max.attempt ?? 0) + 1
        await tx.deliveryAttempt.create({
          data: {
            id: createId('att'),
            deliveryId: delivery.id,
            attempt,
            at,
            responseStatus: outcome.responseStatus,
            durationMs: outcome.durationMs,
            error: outcome.error?.slice(0, 1_000) ?? null,
            requestHeaders: sent.headers,
            requestBody: sent.body,
            ...(outcome.response && { responseHeaders: outcome.response.headers, responseBody: outcome.response.body, responseBodyTruncated: outcome.response.bodyTruncated }),
          },
        })
        await tx.delivery.update({ where: { id: delivery.id }, data: statusAfter(delivery, outcome, mode) })
        return attempt
      }).then((attempt) => {
        metrics.webhookAttempts.inc({ outcome: attemptOutcome(outcome) })
        return attempt
      })
    } catch (error) {
      const code = (error as { code?: string }).code
      // The subscription (and with it the delivery) was deleted while we were sending.
      if (code === 'P2003' || code === 'P2025') return null
      if (code !== 'P2002' || tries >= 3) throw error
    }
  }
}

/** The attempt's outcome as the metric labels it: succeeded, an HTTP status class, or no answer. */
function attemptOutcome(outcome: RequestOutcome): string {
  if (outcome.ok) return 'succeeded'
  if (outcome.responseStatus === null) return 'no_response'
  return `${Math.floor(outcome.responseStatus / 100)}xx`
}
