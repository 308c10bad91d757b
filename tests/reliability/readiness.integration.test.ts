import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runPrisma } from '../../scripts/run-prisma.ts'
import { startPrivatePostgres, startPrivateReplica, type PrivatePostgres } from '../support/private-postgres.ts'
import { stubEnv } from '../support/stub-env.ts'
import { testDatabaseUrl } from '../support/test-env.ts'

// /healthz and /readyz as a load balancer sees them, with this file's own PostgreSQL cluster
// so that it can be stopped: the database client reads DATABASE_URL once, so the routes are
// imported only after it points at that cluster.

let cluster: PrivatePostgres
let readyz: () => Promise<Response>
let healthz: () => Response

beforeAll(async () => {
  cluster = await startPrivatePostgres()
  await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: cluster.url })
  process.env.DATABASE_URL = cluster.url
  stubEnv({ REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', INNGEST_DEV: undefined, INNGEST_EVENT_KEY: undefined })
  readyz = (await import('../../app/readyz/route.ts')).GET
  healthz = (await import('../../app/healthz/route.ts')).GET
}, 90_000)

afterAll(async () => {
  vi.unstubAllEnvs()
  await cluster?.destroy()
})

async function read(response: Response) {
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }
}

describe('health and readiness', () => {
  it('is ready with the database and Redis up, and says when events wait for a queue that is not configured', async () => {
    const { status, body } = await read(await readyz())
    expect(status).toBe(200)
    expect(body).toMatchObject({ status: 'ready', checks: { database: { ok: true }, redis: { ok: true } }, events: { queue: 'not_configured', outbox_waiting: 0 } })
  })

  it('reports outbox backlog and its age', async () => {
    const pg = (await import('pg')).default
    const client = new pg.Client({ connectionString: cluster.url })
    await client.connect()
    try {
      await client.query(`INSERT INTO tenants (id, name, slug, plan, public_site_url, created_at, updated_at) VALUES ('ten_ready', 'Ready', 'ready', 'standard', 'https://ready.example', now(), now())`)
      await client.query(
        `INSERT INTO events (id, tenant_id, kind, occurred_at, data, created_at) VALUES ('evt_ready', 'ten_ready', 'article.updated', now(), '{}', now() - interval '90 seconds')`,
      )
    } finally {
      await client.end()
    }
    const { body } = await read(await readyz())
    expect(body.events).toMatchObject({ outbox_waiting: 1, advice: expect.stringMatching(/INNGEST_EVENT_KEY/) })
    expect(body.events.oldest_waiting_seconds).toBeGreaterThanOrEqual(89)
  })

  it('is unavailable with the database down, naming it, while /healthz still answers', async () => {
    await cluster.stop('fast')
    try {
      const { status, retryAfter, body } = await read(await readyz())
      expect(status).toBe(503)
      expect(retryAfter).toBe('5')
      expect(body).toMatchObject({ status: 'unavailable', ready: false, checks: { database: { ok: false, error: expect.any(String) }, redis: { ok: true } } })
      expect(healthz().status).toBe(200)
    } finally {
      await cluster.start()
    }
    // And ready again once the database is back, with no restart.
    const deadline = Date.now() + 15_000
    let status = 0
    while (Date.now() < deadline && status !== 200) {
      status = (await readyz()).status
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(status).toBe(200)
  })

  it('stays ready for reads with the primary down while the replica answers, saying so', async () => {
    // A real hot standby of this file's cluster: the replica pool refuses a connection that
    // reaches a primary (lib/db/read-routing.ts), so a primary cannot stand in for it.
    const replica = await startPrivateReplica(cluster)
    stubEnv({ DATABASE_REPLICA_URL: replica.url })
    await cluster.stop('fast')
    try {
      const { status, body } = await read(await readyz())
      expect(status).toBe(200)
      expect(body).toMatchObject({ ready: true, serving: expect.stringMatching(/^reads only/), checks: { database: { ok: false } } })
    } finally {
      await cluster.start()
      stubEnv({ DATABASE_REPLICA_URL: undefined })
      await replica.destroy()
    }
  })

  it('does not count a replica address that leads to a primary as a replica: with the primary down it is not ready', async () => {
    // What HAProxy's read port does while no replica passes its check: it sends to a leader.
    stubEnv({ DATABASE_REPLICA_URL: testDatabaseUrl })
    await cluster.stop('fast')
    try {
      const { status, body } = await read(await readyz())
      expect(status).toBe(503)
      expect(body).toMatchObject({ ready: false, checks: { database: { ok: false } } })
    } finally {
      await cluster.start()
      stubEnv({ DATABASE_REPLICA_URL: undefined })
    }
  })

  it('stays ready when Redis is configured but unreachable, reporting the degraded mode and its metric', async () => {
    const { closeRedis } = await import('../../lib/redis.ts')
    const { renderMetrics } = await import('../../lib/ops/metrics.ts')
    await closeRedis()
    stubEnv({ REDIS_URL: 'redis://127.0.0.1:9' })
    try {
      const { status, body } = await read(await readyz())
      // Redis holds caches and limit windows: without it the instance still serves.
      expect(status).toBe(200)
      expect(body).toMatchObject({ ready: true, checks: { database: { ok: true }, redis: { ok: false, degraded: expect.stringMatching(/rate limits per instance/) } } })
      expect((await renderMetrics()).body).toMatch(/^newsroom_redis_up\{server="[^"]+"\} 0$/m)
    } finally {
      await closeRedis()
    }
  })

  it('is unavailable, saying it is draining, once the process is stopping (SIGTERM), while its dependencies are fine', async () => {
    stubEnv({ REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' })
    const { startDraining } = await import('../../lib/server/lifecycle.ts')
    expect((await readyz()).status).toBe(200)
    startDraining()
    try {
      const { status, body } = await read(await readyz())
      expect(status).toBe(503)
      expect(body).toMatchObject({ draining: true, checks: { database: { ok: true }, redis: { ok: true } } })
      expect(healthz().status).toBe(200)
    } finally {
      delete (globalThis as Record<symbol, unknown>)[Symbol.for('newsroom.draining')]
    }
  })
})
