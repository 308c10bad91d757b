import { cron } from 'inngest'
import { pruneDeliveryLog } from '../../lib/webhooks/prune-delivery-log.ts'
import { inngest } from '../client.ts'

/** Nightly, deletes finished webhook deliveries (and their attempts) past DELIVERY_LOG_RETENTION_DAYS (30 by default). */
export const pruneDeliveryLogFunction = inngest.createFunction(
  { id: 'prune-delivery-log', name: 'Prune the webhook deliveries log', triggers: [cron('37 3 * * *')], concurrency: 1 },
  async ({ step }) => step.run('prune', () => pruneDeliveryLog()),
)
