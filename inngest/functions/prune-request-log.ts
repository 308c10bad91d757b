import { cron } from 'inngest'
import { pruneRequestLog } from '../../lib/request-log/prune-request-log.ts'
import { inngest } from '../client.ts'

/** Nightly, deletes request log entries past REQUEST_LOG_RETENTION_DAYS (30 by default). */
export const pruneRequestLogFunction = inngest.createFunction(
  { id: 'prune-request-log', name: 'Prune the API request log', triggers: [cron('17 3 * * *')], concurrency: 1 },
  async ({ step }) => step.run('prune', async () => ({ deleted: await pruneRequestLog() })),
)
