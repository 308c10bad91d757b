import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inngestEventQueue } from '../../inngest/outbox-queue.ts'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { stubEnv } from '../../tests/support/stub-env.ts'
import { db } from '../db/client.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { commitChange } from './commit-change.ts'
import { registerEventQueue, type OutboxRow } from './event-queue.ts'
import { queueHandOffSettled } from './queue-hand-off.ts'

// A change and its events are one unit: both commit or neither does; once committed, the
// after-commit step runs before the writer goes on and the queue gets the events, never before.

let newsroom: TestTenant
const handedOff: { rows: OutboxRow[]; committedWhenSent: boolean[] }[] = []
let failSends = false

beforeAll(async () => {
  newsroom = await createTestTenant()
  registerEventQueue({
    configured: () => true,
    async send(rows) {
      // Read from another connection: only committed rows are visible there.
      const visible = await db.event.findMany({ where: { id: { in: rows.map((row) => row.id) } }, select: { id: true } })
      handedOff.push({ rows, committedWhenSent: rows.map((row) => visible.some((event) => event.id === row.id)) })
      if (failSends) throw new Error('queue down')
    },
  })
})
afterAll(() => registerEventQueue(inngestEventQueue))

const outboxRows = (kind: string) => db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind } })

describe('commitChange', () => {
  it('commits the change with its events, runs the after-commit step, then hands the committed events to the queue', async () => {
    const steps: string[] = []
    const value = await commitChange(
      tenantDb(newsroom.tenant.id),
      newsroom.tenant.id,
      async (tx, emit) => {
        await tx.department.create({ data: { id: 'dep_unit_of_work', tenantId: newsroom.tenant.id, name: 'Unit of work' } })
        await emit([{ kind: 'article.updated', data: { article_id: 'art_unit' } }])
        steps.push('changed')
        return 'done'
      },
      { afterCommit: (events) => void steps.push(`after commit: ${events.map((event) => event.kind).join(',')}`) },
    )
    await queueHandOffSettled()
    expect(value).toBe('done')
    expect(steps).toEqual(['changed', 'after commit: article.updated'])
    const [row] = await outboxRows('article.updated')
    expect(row).toBeDefined()
    expect(handedOff.at(-1)).toMatchObject({ rows: [{ id: row!.id, kind: 'article.updated' }], committedWhenSent: [true] })
    expect((await db.event.findUniqueOrThrow({ where: { id: row!.id } })).sentToQueueAt).not.toBeNull()
  })

  it('leaves no change, no event, no after-commit step and nothing for the queue when the change fails', async () => {
    const before = handedOff.length
    let afterCommitRan = false
    await expect(
      commitChange(
        tenantDb(newsroom.tenant.id),
        newsroom.tenant.id,
        async (tx, emit) => {
          await tx.department.create({ data: { id: 'dep_rolled_back', tenantId: newsroom.tenant.id, name: 'Rolled back' } })
          await emit([{ kind: 'article.archived', data: { article_id: 'art_rolled_back' } }])
          throw new Error('refused after emitting')
        },
        { afterCommit: () => void (afterCommitRan = true) },
      ),
    ).rejects.toThrow('refused after emitting')
    await queueHandOffSettled()
    expect(await outboxRows('article.archived')).toEqual([])
    expect(await db.department.findUnique({ where: { id: 'dep_rolled_back' } })).toBeNull()
    expect(afterCommitRan).toBe(false)
    expect(handedOff.length).toBe(before)
  })

  it('runs no after-commit step when the change emitted nothing (a race lost, nothing to do)', async () => {
    let afterCommitRan = false
    const value = await commitChange(tenantDb(newsroom.tenant.id), newsroom.tenant.id, async () => undefined, { afterCommit: () => void (afterCommitRan = true) })
    expect(value).toBeUndefined()
    expect(afterCommitRan).toBe(false)
  })

  it('answers the writer even when the queue refuses: the events stay in the outbox for the sweeper', async () => {
    stubEnv({ QUEUE_PAUSE_AFTER_FAILURE_MS: '0' })
    failSends = true
    try {
      await commitChange(tenantDb(newsroom.tenant.id), newsroom.tenant.id, (_tx, emit) => emit([{ kind: 'article.unpublished', data: { article_id: 'art_queue_down' } }]))
      await queueHandOffSettled()
    } finally {
      failSends = false
    }
    const [row] = await outboxRows('article.unpublished')
    expect(row).toMatchObject({ sentToQueueAt: null, sendAttempts: 1, lastSendError: 'queue down' })
  })
})
