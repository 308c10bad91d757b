import { sqlPool, type Database } from '../db/client.ts'
import { processSingleton } from '../process-singleton.ts'
import { eventQueue, type OutboxRow } from './event-queue.ts'
import { retryPurgesSoon, sendContentPurges } from '../content/purge-hook.ts'

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

/** Records on outbox rows that they were sent, or that a send failed (counted, error kept). */
export type OutboxMarks = { sent(ids: string[]): Promise<void>; failed(ids: string[], message: string): Promise<void> }

/**
 * How the writes' hand-off marks rows: raw SQL on the shared pool, because it runs for every
 * batch of writes and Prisma's updateMany cost more CPU than the write it followed (bench:
 * create throughput). The sweeper marks through its transaction (outboxMarksIn).
 */
const handOffMarks: OutboxMarks = {
  async sent(ids: string[]): Promise<void> {
    await sqlPool.query('UPDATE events SET sent_to_queue_at = now() WHERE id = ANY($1::text[]) AND sent_to_queue_at IS NULL', [ids])
  },
  async failed(ids: string[], message: string): Promise<void> {
    await sqlPool.query('UPDATE events SET send_attempts = send_attempts + 1, last_send_error = $2 WHERE id = ANY($1::text[]) AND sent_to_queue_at IS NULL', [ids, message])
  },
}

/** Marks made through `db`: the sweeper's transaction, which holds the rows' locks. */
export function outboxMarksIn(db: Pick<Database, 'event'>): OutboxMarks {
  return {
    async sent(ids) {
      await db.event.updateMany({ where: { id: { in: ids }, sentToQueueAt: null }, data: { sentToQueueAt: new Date() } })
    },
    async failed(ids, message) {
      await db.event.updateMany({ where: { id: { in: ids }, sentToQueueAt: null }, data: { sendAttempts: { increment: 1 }, lastSendError: message } })
    },
  }
}

export function queueLastFailedAt(): number | null {
  return queueHealth.lastFailedAt
}

/**
 * Sends outbox rows to the queue in order and marks each batch sent. Rows nothing behind the
 * queue would act on (an article event in a newsroom with no subscription for its kind) leave
 * the outbox without a send: a run per edit that finds no subscriber costs the queue a request,
 * our server a function call and the newsroom a billed run, for nothing. A failure counts an
 * attempt on the rows not yet sent, keeps the error for operators, and is rethrown.
 * `marks` records what happened: the sweeper's go through the transaction that holds the rows'
 * locks (another connection would wait on those locks until the transaction gave up).
 */
export async function sendOutboxEvents(rows: OutboxRow[], marks: OutboxMarks = handOffMarks): Promise<number> {
  // Content purges go to the shared cache's purge hook, not the queue (lib/content/purge-hook.ts).
  const purges = rows.filter((row) => row.kind === purgeKind)
  if (purges.length === 0) return sendToQueue(rows, marks)
  const purged = await sendPurges(purges, marks)
  const others = rows.filter((row) => row.kind !== purgeKind)
  return purged + (others.length > 0 ? await sendToQueue(others, marks) : 0)
}

const purgeKind = 'content.purge_requested'

async function sendPurges(rows: OutboxRow[], marks: OutboxMarks): Promise<number> {
  const ids = rows.map((row) => row.id)
  try {
    await sendContentPurges(rows)
    await marks.sent(ids)
    return rows.length
  } catch (error) {
    await marks.failed(ids, (error as Error).message.slice(0, 1_000)).catch(() => undefined)
    retryPurgesSoon(resendWaitingPurges)
    return 0
  }
}

/** Purges the outbox still holds (the cache was down), oldest first; several instances take different rows. */
export async function resendWaitingPurges(): Promise<number> {
  const client = await sqlPool.connect()
  try {
    await client.query('BEGIN')
    const { rows } = await client.query<OutboxRow>(
      `SELECT id, tenant_id AS "tenantId", kind, occurred_at AS "occurredAt", data FROM events
       WHERE sent_to_queue_at IS NULL AND kind = $1 ORDER BY created_at, id LIMIT 500 FOR NO KEY UPDATE SKIP LOCKED`,
      [purgeKind],
    )
    if (rows.length > 0) await sendContentPurges(rows)
    await client.query('UPDATE events SET sent_to_queue_at = now() WHERE id = ANY($1::text[])', [rows.map((row) => row.id)])
    await client.query('COMMIT')
    return rows.length
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

async function sendToQueue(allRows: OutboxRow[], marks: OutboxMarks): Promise<number> {
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
    if (all.length > 0) await marks.sent(all)
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
    await marks.failed(rows.slice(sent).map((row) => row.id), (error as Error).message.slice(0, 1_000)).catch(() => undefined)
    throw error
  }
}
