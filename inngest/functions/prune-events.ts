import { cron } from 'inngest'
import { pruneEvents } from '../../lib/events/prune-events.ts'
import { inngest } from '../client.ts'

/**
 * Nightly, after the deliveries log's prune (whose deliveries keep their events), deletes
 * events past EVENTS_RETENTION_DAYS (30 by default) that no delivery refers to.
 */
export const pruneEventsFunction = inngest.createFunction(
  { id: 'prune-events', name: 'Prune events past their retention', triggers: [cron('57 3 * * *')], concurrency: 1 },
  async ({ step }) => step.run('prune', () => pruneEvents()),
)
