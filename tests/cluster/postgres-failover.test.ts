import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { databaseLeader, databaseNodes, killDatabaseLeader, startDatabaseNode } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { pollFor, reportFault, unavailableSeconds } from './fault-support.ts'

// The PostgreSQL leader's machine dies (Patroni and PostgreSQL SIGKILLed) while writers create
// articles through HAProxy: Patroni promotes the synchronous replica within 30 s, the instances
// carry on by themselves (a write either succeeds or gets 503 with Retry-After), and every
// write that was acknowledged is in the new leader's database exactly once.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`

let newsroom: TestTenant
let token: string

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
})

type Write = { headline: string; status: number; retryAfter: string | null; startedAt: number; endedAt: number; ok: boolean }

let killed: string | undefined

afterAll(() => {
  // The dead node is started again: it rejoins as a replica of the new leader (pg_rewind). This
  // file runs last (vitest.cluster.config.ts), so nothing waits for it.
  if (killed) startDatabaseNode(databaseNodes.indexOf(killed as (typeof databaseNodes)[number]))
})

describe('the PostgreSQL leader SIGKILLed under a writer loop', () => {
  it('elects a new leader within 30 s and keeps every acknowledged write exactly once', async () => {
    const client = apiClient(haproxy, token)
    const writes: Write[] = []
    let running = true
    const writer = async (worker: number) => {
      for (let i = 0; running; i++) {
        const headline = `failover ${worker}-${i}`
        const startedAt = performance.now()
        const answer = await client.post('/v1/articles', { headline }).catch(() => ({ status: 0, headers: new Headers() }))
        writes.push({ headline, status: answer.status, retryAfter: answer.headers.get('retry-after'), startedAt, endedAt: performance.now(), ok: answer.status === 201 })
        if (answer.status !== 201) await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
    const writers = [0, 1, 2].map(writer)
    // Under way: three writes acknowledged per writer before the leader dies.
    await pollFor(async () => [0, 1, 2].every((worker) => writes.filter((write) => write.ok && write.headline.startsWith(`failover ${worker}-`)).length >= 3), 'three writes acknowledged by each writer', 30_000, 50)
    const before = await databaseLeader()
    const killedAt = performance.now()
    killed = await killDatabaseLeader()
    expect(killed).toBe(before)
    const newLeader = await pollFor(async () => {
      const leader = await databaseLeader()
      return leader && leader !== killed ? leader : undefined
    }, 'a new PostgreSQL leader', 30_000, 250)
    const electedSeconds = Math.round((performance.now() - killedAt) / 100) / 10
    // Writes succeed again through the same address, without restarting anything: each writer
    // has a write acknowledged that it started after the new leader was elected.
    const electedAt = killedAt + electedSeconds * 1000
    await pollFor(async () => [0, 1, 2].every((worker) => writes.some((write) => write.ok && write.startedAt > electedAt && write.headline.startsWith(`failover ${worker}-`))), 'a write acknowledged by each writer after the failover', 30_000, 100)
    running = false
    await Promise.all(writers)

    expect(electedSeconds).toBeLessThan(30)
    expect(newLeader).not.toBe(killed)
    // Every failure the writers saw is a 503 with Retry-After (or the connection HAProxy cut).
    const failures = writes.filter((write) => !write.ok)
    expect(failures.filter((write) => !((write.status === 503 && write.retryAfter) || write.status === 0 || write.status === 502)).map((write) => write.status)).toEqual([])

    // Every acknowledged write is there exactly once, read from the new leader directly.
    const leaderIndex = databaseNodes.indexOf(newLeader as (typeof databaseNodes)[number])
    const direct = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${layout.ports.postgres[leaderIndex]}/newsroom` })
    await direct.connect()
    try {
      const { rows } = await direct.query<{ headline: string; copies: number }>(
        "SELECT headline, count(*)::int AS copies FROM articles WHERE tenant_id = $1 AND headline LIKE 'failover %' GROUP BY headline",
        [newsroom.tenant.id],
      )
      const copies = new Map(rows.map((row) => [row.headline, row.copies]))
      const acknowledged = writes.filter((write) => write.ok)
      expect(acknowledged.length).toBeGreaterThan(10)
      expect(acknowledged.filter((write) => copies.get(write.headline) !== 1).map((write) => write.headline)).toEqual([])
      // A write answered 503 or cut may have committed (its client retries with an Idempotency-Key), but never twice.
      expect(rows.filter((row) => row.copies > 1)).toEqual([])
      reportFault('PostgreSQL leader SIGKILLed (Patroni + PostgreSQL) under 3 writers', {
        new_leader_seconds: electedSeconds,
        write_unavailability_seconds: unavailableSeconds(writes),
        writes: writes.length,
        acknowledged: acknowledged.length,
        failed_writes: failures.length,
        failed_503: failures.filter((write) => write.status === 503).length,
        acknowledged_writes_lost: acknowledged.filter((write) => copies.get(write.headline) !== 1).length,
      })
    } finally {
      await direct.end()
    }
  })
})
