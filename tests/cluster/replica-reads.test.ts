import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { databaseMaintenance, replicaServer } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { pollFor } from './fault-support.ts'

// GETs of /v1 read from the streaming replica of `npm run cluster` when it has replayed the
// newsroom's last write, and from the primary otherwise (lib/db/read-routing.ts).

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`

let newsroom: TestTenant
let token: string
let replica: pg.Client

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
  replica = new pg.Client({ connectionString: layout.appEnv.DATABASE_REPLICA_URL })
  await replica.connect()
})

afterAll(async () => {
  await replica.end().catch(() => undefined)
  await db.$disconnect()
})

async function primaryPosition(): Promise<bigint> {
  const [row] = await db.$queryRaw<{ lsn: string }[]>`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint::text AS lsn`
  return BigInt(row!.lsn)
}

/** Waits (bounded) until the replica has replayed everything the primary has written so far. */
async function replicaCaughtUp(): Promise<void> {
  const target = await primaryPosition()
  for (let i = 0; i < 200; i++) {
    const { rows } = await replica.query<{ lsn: string }>("SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint::text AS lsn")
    if (BigInt(rows[0]!.lsn) >= target) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error('The replica did not catch up with the primary')
}

/** newsroom_replica_fallback_reads_total by reason, summed over the three instances. */
async function fallbacks(instances = [0, 1, 2]): Promise<Record<string, number>> {
  const sums: Record<string, number> = {}
  for (const index of instances) {
    const answer = await fetch(`${instance(index)}/metrics`, { headers: { Authorization: `Bearer ${layout.appEnv.METRICS_TOKEN}` } })
    expect(answer.status).toBe(200)
    for (const [, reason, value] of (await answer.text()).matchAll(/^newsroom_replica_fallback_reads_total\{reason="([a-z_]+)"\} (\d+)/gm)) sums[reason!] = (sums[reason!] ?? 0) + Number(value)
  }
  return sums
}

// Each list asks for a page size not asked before: the response cache keeps an answer only the
// second time its query is asked (lib/api/response-cache.ts), so every such list reads the database.
let pageSize = 3

/** The article's headline in a newsroom's list read from the database (never from the response cache). */
async function listedHeadline(client: ReturnType<typeof apiClient>, articleId: string): Promise<string | undefined> {
  pageSize = pageSize >= 200 ? 3 : pageSize + 1
  const answer = await client.get(`/v1/articles?sort=published_at&limit=${pageSize}`)
  expect(answer.status).toBe(200)
  return answer.body.items.find((item: { article_id: string }) => item.article_id === articleId)?.headline
}

/** Reads made on the primary for a reason the instances counted (every reason but none). */
const countedFallbacks = (sums: Record<string, number>) => Object.values(sums).reduce((total, value) => total + value, 0)

describe('reads from the replica', () => {
  it('a client never reads older than its own write, whichever instance it writes through and reads from', async () => {
    const created = (await apiClient(instance(0), token).post('/v1/articles', { headline: 'Take 0' })).body
    const path = `/v1/articles/${created.article_id}`
    for (let take = 1; take <= 12; take++) {
      const writer = apiClient(instance(take % 3), token)
      expect((await writer.patch(path, { headline: `Take ${take}` })).status).toBe(200)
      const reader = apiClient(instance((take + 1) % 3), token)
      expect((await reader.get(path)).body.headline).toBe(`Take ${take}`)
      const listed = (await reader.get(`/v1/articles?sort=published_at&limit=5`)).body.items.find((item: { article_id: string }) => item.article_id === created.article_id)
      expect(listed?.headline).toBe(`Take ${take}`)
    }
  })

  it('reads the replica once it has replayed the newsroom’s last write, and the primary while it has not', async () => {
    const editor = apiClient(instance(0), token)
    const created = (await editor.post('/v1/articles', { headline: 'Original' })).body
    const path = `/v1/articles/${created.article_id}`
    let written = 'Original'
    await replicaCaughtUp()
    // The test's own connection is on Patroni's replica (HAProxy's read port), and so is the replay it pauses.
    expect((await replica.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows[0]!.standby).toBe(true)
    // Patroni resumes a paused replay within a second unless it is in maintenance mode.
    await databaseMaintenance('pause')
    await replica.query('SELECT pg_wal_replay_pause()')
    try {
      // Changed on the primary behind the service's back (no write position recorded): a GET that
      // still answers the old headline was read from the (paused) replica. An instance may read
      // the primary meanwhile only for a reason it counts (a replica status query slower than
      // 1 s on a loaded host is `unavailable` for a second), never silently: each answer from
      // the primary comes with a counted fallback, until the replica answers.
      // Read through lists the response cache does not keep: each poll is a read of the database.
      const reader = apiClient(instance(1), token)
      await pollFor(
        async () => {
          const before = await fallbacks([1])
          const headline = await listedHeadline(reader, created.article_id)
          if (headline === 'Original') return true
          const after = await fallbacks([1])
          expect(headline).toBe('Changed in SQL')
          expect(countedFallbacks(after) - countedFallbacks(before), JSON.stringify({ before, after })).toBeGreaterThanOrEqual(1)
          return undefined
        },
        'a read of the paused replica',
        20_000,
        100,
      )

      // A write through the service records its position, which the paused replica has not
      // replayed: every instance now reads this newsroom from the primary (0 stale reads), and
      // counts each such read: `behind`, or `unavailable` while a replica slow to answer its
      // status (a loaded host) is skipped. Each round writes again, so no answer comes from
      // the response cache, until reads have been counted as `behind`.
      let headline = ''
      let round = 0
      await pollFor(
        async () => {
          headline = `Written through the service ${++round}`
          expect((await editor.patch(path, { headline })).status).toBe(200)
          const before = await fallbacks()
          // Two reads of the database (lists never asked before), each counted.
          for (const index of [1, 2]) expect(await listedHeadline(apiClient(instance(index), token), created.article_id)).toBe(headline)
          const after = await fallbacks()
          expect(countedFallbacks(after) - countedFallbacks(before), JSON.stringify({ before, after })).toBeGreaterThanOrEqual(2)
          // The article itself and a search, on every instance: never older than the write.
          for (const index of [0, 1, 2]) expect((await apiClient(instance(index), token).get(path)).body.headline).toBe(headline)
          const search = await apiClient(instance(2), token).get(`/v1/articles?q=${encodeURIComponent(`"${headline.toLowerCase()}"`)}`)
          expect(search.body.items.map((item: { article_id: string }) => item.article_id)).toContain(created.article_id)
          return (after.behind ?? 0) - (before.behind ?? 0) >= 2 ? true : undefined
        },
        'reads counted as behind the newsroom’s write',
        30_000,
        100,
      )
      written = headline
    } finally {
      await replica.query('SELECT pg_wal_replay_resume()')
      await databaseMaintenance('resume')
    }
    await replicaCaughtUp()
    expect((await apiClient(instance(1), token).get(path)).body.headline).toBe(written)
  })

  it('goes on reading from the primary while the replica is stopped, and counts each such read', async () => {
    const editor = apiClient(haproxy, token)
    const created = (await editor.post('/v1/articles', { headline: 'While the replica is away' })).body
    const before = await fallbacks()
    await replica.end()
    await replicaServer('stop')
    try {
      for (let i = 0; i < 6; i++) {
        const answer = await editor.get(`/v1/articles/${created.article_id}`)
        expect(answer.status).toBe(200)
        expect(answer.body.headline).toBe('While the replica is away')
        expect((await editor.get('/v1/articles?limit=3')).status).toBe(200)
      }
      const after = await fallbacks()
      expect((after.unavailable ?? 0) - (before.unavailable ?? 0)).toBeGreaterThanOrEqual(1)
    } finally {
      await replicaServer('start')
      replica = new pg.Client({ connectionString: layout.appEnv.DATABASE_REPLICA_URL })
      await replica.connect()
    }
    await replicaCaughtUp()
  })
})
