import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { inngest } from '../client.ts'
import type { EventEnvelope } from '../../lib/events/event-envelope.ts'
import { deliveryRequestedEvent, publicEventTriggers } from '../events.ts'

/**
 * One public event → one Delivery per interested subscription (idempotently), then one
 * delivery-requested event per delivery in a single send, so each delivery runs (and
 * retries) on its own and a hundred subscriptions are enqueued in one round trip.
 */
export const fanOutEvent = inngest.createFunction(
  {
    id: 'fan-out-event',
    name: 'Fan out an event to webhook subscriptions',
    triggers: publicEventTriggers,
    idempotency: 'event.data.event_id',
  },
  async ({ event, step }) => {
    const { event_id: eventId } = event.data as EventEnvelope
    const deliveries = await step.run('create-deliveries', () => createDeliveriesForEvent(eventId))
    if (deliveries.length === 0) return { eventId, deliveries: 0 }
    await step.sendEvent(
      'enqueue-deliveries',
      deliveries.map((delivery) =>
        deliveryRequestedEvent.create(
          { delivery_id: delivery.deliveryId, subscription_id: delivery.subscriptionId, tenant_id: delivery.tenantId, event_id: delivery.eventId, kind: delivery.kind },
          // The delivery id as the event id: a re-run of this function enqueues nothing twice.
          { id: delivery.deliveryId },
        ),
      ),
    )
    return { eventId, deliveries: deliveries.length }
  },
)
