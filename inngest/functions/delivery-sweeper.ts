import { cron } from 'inngest'
import { claimDeliveriesToRequeue } from '../../lib/webhooks/sweep-deliveries.ts'
import { inngest } from '../client.ts'
import { deliveryRequestedEvent } from '../events.ts'

/**
 * Every minute, re-requests deliveries no run will finish: those held while their
 * subscription was paused (now resumed) and those stuck pending because their run gave up
 * on infrastructure errors. Each goes out under a new run generation; its event id names
 * the generation, so a re-run of this function enqueues nothing twice.
 */
export const deliverySweeper = inngest.createFunction(
  { id: 'delivery-sweeper', name: 'Re-request held and stuck webhook deliveries', triggers: [cron('* * * * *')], concurrency: 1 },
  async ({ step }) => {
    const deliveries = await step.run('claim-deliveries', () => claimDeliveriesToRequeue())
    if (deliveries.length === 0) return { requeued: 0 }
    await step.sendEvent(
      'request-deliveries',
      deliveries.map((delivery) =>
        deliveryRequestedEvent.create(
          {
            delivery_id: delivery.deliveryId,
            subscription_id: delivery.subscriptionId,
            tenant_id: delivery.tenantId,
            event_id: delivery.eventId,
            kind: delivery.kind,
            generation: delivery.generation,
          },
          { id: `${delivery.deliveryId}-g${delivery.generation}` },
        ),
      ),
    )
    return { requeued: deliveries.length }
  },
)
