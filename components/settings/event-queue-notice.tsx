import { eventQueueHealth } from '@/lib/ops/event-queue-health'
import type { Actor } from '@/lib/tenancy/actor'
import { waitAge as age } from '@/lib/ops/wait-age'
import Link from 'next/link'

/**
 * Says plainly when the newsroom's events are not going out (no queue configured, or it is
 * failing) and what fixes it; nothing when all is well. `kinds` narrows the count to what one
 * subscription receives.
 */
export async function EventQueueNotice({ actor, kinds, listLink = true }: { actor: Actor; kinds?: string[]; listLink?: boolean }) {
  const health = await eventQueueHealth(actor, kinds)
  if (!health.advice || (health.queue === 'configured' && (health.oldestWaitingSeconds ?? 0) < 120)) return null
  return (
    <div className="alert error" role="status" data-testid="event-queue-notice">
      <p>
        <strong>
          {health.waiting === 0
            ? 'Events are not being delivered.'
            : `${health.waiting} ${health.waiting === 1 ? 'event is' : 'events are'} waiting to be delivered${health.oldestWaitingSeconds !== null ? `, the oldest for ${age(health.oldestWaitingSeconds)}` : ''}.`}
        </strong>
      </p>
      <p>{health.advice}</p>
      {listLink && health.waiting > 0 && (
        <p>
          <Link href="/settings/webhooks/waiting-events">See the waiting events</Link>
        </p>
      )}
    </div>
  )
}
