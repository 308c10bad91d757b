import { cron } from 'inngest'
import { prunePortalSessions } from '../../lib/auth/prune-portal-sessions.ts'
import { inngest } from '../client.ts'

/** Nightly, deletes the records of portal sessions that ended or lapsed more than 30 days ago. */
export const prunePortalSessionsFunction = inngest.createFunction(
  { id: 'prune-portal-sessions', name: 'Prune finished portal sessions', triggers: [cron('17 4 * * *')], concurrency: 1 },
  async ({ step }) => step.run('prune', () => prunePortalSessions()),
)
