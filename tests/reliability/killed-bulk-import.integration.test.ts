import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// The app process dies (SIGKILL: no handler runs, no ROLLBACK is sent) while a bulk import of
// 500 large articles is being written. The import is one transaction (lib/articles/bulk-import.ts),
// so the database must hold all 500 articles and their 500 events, or none of either.

const items = 500
const bodyBytes = 16 * 1024
const pollEveryMs = 5

let newsroom: TestTenant
let token: string
let monitor: pg.Client
const servers: SpawnedApiServer[] = []

beforeAll(async () => {
  newsroom = await createTestTenant()
  token = await newsroom.token(['articles:write'])
  monitor = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await monitor.connect()
})

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()))
  await monitor?.end()
})

function bulkBody(batch: string): string {
  const filler = 'Wire copy paragraph. '.repeat(Math.ceil(bodyBytes / 21)).slice(0, bodyBytes)
  return JSON.stringify({
    articles: Array.from({ length: items }, (_, i) => ({
      external_id: `${batch}-${i}`,
      headline: `${batch} story ${i}`,
      lede: `Lede ${i}`,
      body: `<p>${filler}</p>`,
      tags: [batch],
    })),
  })
}

/** What this database's sessions are doing, other than the monitor's own. */
async function activity(): Promise<{ state: string | null; query: string; xactStart: Date | null }[]> {
  const { rows } = await monitor.query<{ state: string | null; query: string; xact_start: Date | null }>(
    `SELECT state, query, xact_start FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
  )
  return rows.map((row) => ({ state: row.state, query: row.query, xactStart: row.xact_start }))
}

/** Polls pg_stat_activity until `match` holds (true) or `timeoutMs` passes (false). */
async function waitForActivity(match: (sessions: Awaited<ReturnType<typeof activity>>) => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (match(await activity())) return true
    await new Promise((resolve) => setTimeout(resolve, pollEveryMs))
  }
  return false
}

const insertingArticles = (sessions: Awaited<ReturnType<typeof activity>>) => sessions.some((session) => session.state === 'active' && /^\s*INSERT INTO articles/i.test(session.query))
const insertingEvents = (sessions: Awaited<ReturnType<typeof activity>>) => sessions.some((session) => session.state === 'active' && /^\s*INSERT INTO ("public"\.)?"?events"?\s/i.test(session.query))

type Timing = {
  name: string
  /** Resolves when it is time to kill; false when the moment never came (the import was faster). */
  killAt: (sentAt: number) => Promise<boolean>
  /** What the database must hold afterwards when the kill came at that moment. */
  expect: 'none' | 'all-or-none'
  /** Holds a lock on the events table from before the request until after the kill. */
  blockEvents?: boolean
}

const timings: Timing[] = [
  // Mid-statement: the INSERT of the 500 articles is running, so nothing can have committed.
  { name: 'while the articles INSERT runs', killAt: () => waitForActivity(insertingArticles, 15_000), expect: 'none' },
  // The articles are written (uncommitted), their events are being written.
  { name: 'while the events INSERT runs', killAt: () => waitForActivity(insertingEvents, 15_000), expect: 'none' },
  // Deterministic: another session locks the events table, so the transaction stops with its
  // articles written and its events waiting; the kill lands there for sure.
  { name: 'while the transaction waits, articles written, events blocked', killAt: () => waitForActivity(insertingEvents, 15_000), expect: 'none', blockEvents: true },
  // Blind timings: before, during or after the transaction, whichever it hits.
  ...[150, 700, 1_500].map((ms): Timing => ({ name: `${ms} ms after sending`, killAt: async (sentAt) => (await sleepUntil(sentAt + ms), true), expect: 'all-or-none' })),
]

async function sleepUntil(at: number): Promise<void> {
  const wait = at - performance.now()
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}

/** The batch's articles and events as the database holds them once no session of the dead process is left. */
async function stored(batch: string) {
  // PostgreSQL rolls an open transaction back when it notices the client is gone; it notices
  // at its next read or write on the socket, so give the backend a moment to get there.
  const settled = await waitForActivity((sessions) => !sessions.some((session) => session.state !== 'idle'), 15_000)
  expect(settled, 'a session of the killed process stayed busy').toBe(true)
  const { rows: articles } = await monitor.query<{ id: string }>('SELECT id FROM articles WHERE tenant_id = $1 AND $2 = ANY(tags)', [newsroom.tenant.id, batch])
  const { rows: events } = await monitor.query<{ article_id: string }>(
    "SELECT data->>'article_id' AS article_id FROM events WHERE tenant_id = $1 AND kind = 'article.created' AND data->'tags' ? $2",
    [newsroom.tenant.id, batch],
  )
  return { articles: articles.map((row) => row.id), events: events.map((row) => row.article_id) }
}

describe('a process killed mid-bulk-import', () => {
  const outcomes: { timing: string; killedWhenExpected: boolean; response: string; articles: number; events: number }[] = []

  it.each(timings.map((timing, index) => [timing.name, timing, index] as const))('killed %s leaves all 500 articles with their events, or none of either', async (_name, timing, index) => {
    const server = await spawnApiServer(process.env.DATABASE_URL!)
    servers.push(server)
    // Warm up: the first request loads the route's modules and opens the pool, which would
    // otherwise blur the timings.
    await fetch(`${server.url}/v1/articles/bulk`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{"articles":[]}' })

    let locker: pg.Client | undefined
    if (timing.blockEvents) {
      // A session of its own: inside a transaction, pg_stat_activity would show the monitor a
      // snapshot frozen at its first read.
      locker = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await locker.connect()
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE events IN SHARE MODE')
    }

    const batch = `kill${index}x${Date.now().toString(36)}`
    const sentAt = performance.now()
    const answer = fetch(`${server.url}/v1/articles/bulk`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: bulkBody(batch),
      signal: AbortSignal.timeout(30_000),
    }).then(
      async (response) => `${response.status} ${(await response.text()).slice(0, 80)}`,
      (error: Error) => `no answer (${error.message})`,
    )

    const killedWhenExpected = await timing.killAt(sentAt)
    server.child.kill('SIGKILL')
    await server.exited
    if (locker) {
      await locker.query('COMMIT')
      await locker.end()
    }
    const response = await answer
    const { articles, events } = await stored(batch)
    outcomes.push({ timing: timing.name, killedWhenExpected, response, articles: articles.length, events: events.length })

    // All or none, and no article without its event (nor an event without its article).
    expect([0, items]).toContain(articles.length)
    expect(new Set(events)).toEqual(new Set(articles))
    if (timing.expect === 'none') {
      // The kill came inside the transaction, so nothing may have been committed or acknowledged.
      expect(killedWhenExpected, `never saw the moment: ${timing.name}`).toBe(true)
      expect(articles).toEqual([])
      expect(response).toMatch(/^no answer/)
    }
    if (articles.length === 0) expect(response).not.toMatch(/^200/)
  }, 45_000)

  afterAll(() => console.info(`[killed-bulk-import] ${JSON.stringify(outcomes)}`))

  it('left no article without its event anywhere in the tenant', async () => {
    const { rows } = await monitor.query<{ n: string }>(
      `SELECT count(*) AS n FROM articles a
       WHERE a.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = a.tenant_id AND e.kind = 'article.created' AND e.data->>'article_id' = a.id)`,
      [newsroom.tenant.id],
    )
    expect(Number(rows[0]!.n)).toBe(0)
  })
})
