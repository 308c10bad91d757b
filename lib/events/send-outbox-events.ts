import type { Database } from '../db/client.ts'
import { processSingleton } from '../process-singleton.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { eventQueue, type OutboxRow } from './event-queue.ts'

export class QueueNotConfiguredError extends Error {
  constructor() {
    super('Inngest is not configured (set INNGEST_DEV=1 for the dev server, or INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY); events wait in the outbox.')
  }
}

const eventsPerRequest = 100

// When a send to the queue last failed; cleared by any send that succeeds (a write's or the
// sweeper's), so writes go back to sending directly as soon as the queue answers again. One per
// process: the sweeper runs in Next's copy of lib/, the /v1 writes in the server's.
const queueHealth = processSingleton<{ lastFailedAt: number | null }>('queue health', () => ({ lastFailedAt: null }))

export function queueLastFailedAt(): number | null {
  return queueHealth.lastFailedAt
}

/**
 * Sends outbox rows to the queue in order and marks each batch sent. Rows nothing behind the
 * queue would act on (an article event in a newsroom with no subscription for its kind) leave
 * the outbox without a send: a run per edit that finds no subscriber costs the queue a request,
 * our server a function call and the newsroom a billed run, for nothing. A failure counts an
 * attempt on the rows not yet sent, keeps the error for operators, and is rethrown.
 * `db` is the client that marks them: the sweeper passes the transaction that holds their
 * row locks (another connection would wait on those locks until the transaction gave up).
 */
export async function sendOutboxEvents(allRows: OutboxRow[], db: Pick<Database, 'event'> = systemDb()): Promise<number> {
  if (allRows.length === 0) return 0
  const queue = eventQueue()
  if (!queue) throw new QueueNotConfiguredError()
  const wanted = queue.wanted ? await queue.wanted(allRows) : allRows.map(() => true)
  const rows = allRows.filter((_, index) => wanted[index])
  // Marked with the first batch sent, or alone when nothing is to be sent.
  let unwantedIds = allRows.filter((_, index) => !wanted[index]).map((row) => row.id)
  const unwantedCount = unwantedIds.length
  const markSent = async (ids: string[]) => {
    const all = [...unwantedIds, ...ids]
    unwantedIds = []
    if (all.length > 0) await db.event.updateMany({ where: { id: { in: all }, sentToQueueAt: null }, data: { sentToQueueAt: new Date() } })
  }
  if (rows.length === 0) {
    await markSent([])
    return unwantedCount
  }
  if (!queue.configured()) {
    await markSent([])
    throw new QueueNotConfiguredError()
  }
  let sent = 0
  try {
    for (let start = 0; start < rows.length; start += eventsPerRequest) {
      const batch = rows.slice(start, start + eventsPerRequest)
      await queue.send(batch)
      await markSent(batch.map((row) => row.id))
      sent += batch.length
    }
    queueHealth.lastFailedAt = null
    return unwantedCount + sent
  } catch (error) {
    queueHealth.lastFailedAt = Date.now()
    await markSent([]).catch(() => undefined)
    await db.event
      .updateMany({
        where: { id: { in: rows.slice(sent).map((row) => row.id) }, sentToQueueAt: null },
        data: { sendAttempts: { increment: 1 }, lastSendError: (error as Error).message.slice(0, 1_000) },
      })
      .catch(() => undefined)
    throw error
  }
}
