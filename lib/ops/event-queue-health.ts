import { queueConfigured } from '../events/event-queue.ts'
import { queueLastFailedAt } from '../events/send-outbox-events.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'

export type EventQueueState = 'configured' | 'not_configured' | 'failing'

/** Whether events can reach the queue now, as far as this process knows. */
export function eventQueueState(): EventQueueState {
  if (!queueConfigured()) return 'not_configured'
  return queueLastFailedAt() === null ? 'configured' : 'failing'
}

const advice: Record<EventQueueState, string> = {
  not_configured:
    'No Inngest is configured, so webhook deliveries and scheduled publications wait. Set INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY (Inngest Cloud or a self-hosted server), or run the Inngest dev server for npm run dev; waiting events are sent as soon as it is reachable.',
  failing:
    'The last attempt to hand events to Inngest failed, so webhook deliveries and scheduled publications wait. Check that Inngest is running and reachable from the server; waiting events are re-sent every minute once it answers.',
  configured: 'Events are waiting to be handed to Inngest; they normally go within a minute.',
}

export type EventQueueHealth = {
  queue: EventQueueState
  /** The newsroom's events not yet handed to the queue (of the given kinds, if any). */
  waiting: number
  oldestWaitingSeconds: number | null
  /** What is wrong and what fixes it, when events wait; null when none does. */
  advice: string | null
}

/** What an admin needs to know about a newsroom's events that have not gone out yet. */
export async function eventQueueHealth(actor: Actor, kinds?: string[]): Promise<EventQueueHealth> {
  assertCan(actor, 'webhooks:manage')
  const waiting = await tenantDb(actor.tenant.id).event.aggregate({
    where: { sentToQueueAt: null, ...(kinds && { kind: { in: kinds } }) },
    _count: { _all: true },
    _min: { createdAt: true },
  })
  const oldest = waiting._min.createdAt
  const queue = eventQueueState()
  return {
    queue,
    waiting: waiting._count._all,
    oldestWaitingSeconds: oldest ? Math.max(0, Math.round((Date.now() - oldest.getTime()) / 1000)) : null,
    advice: waiting._count._all > 0 || queue !== 'configured' ? advice[queue] : null,
  }
}

export { advice as eventQueueAdvice }
