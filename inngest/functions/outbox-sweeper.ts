import { cron } from 'inngest'
import { sweepOutbox } from '../../lib/events/sweep-outbox.ts'
import { inngest } from '../client.ts'

/**
 * Every minute, re-sends outbox events whose immediate send failed. Events younger than
 * 30 s are left to the request still sending them.
 */
export const outboxSweeper = inngest.createFunction(
  { id: 'outbox-sweeper', name: 'Re-send unsent outbox events', triggers: [cron('* * * * *')], concurrency: 1 },
  async ({ step }) => step.run('sweep-outbox', () => sweepOutbox({ minAgeMs: 30_000 })),
)
