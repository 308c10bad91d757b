import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer, type ServedTenant } from '../support/spawn-api-server.ts'

// Wire importers send overlapping batches at once (several feeds carry the same stories, and
// a client retries after a time-out): twelve concurrent imports whose external_ids overlap in
// different orders, twenty rounds. Every one must land, and together they must leave exactly
// what the twelve would have left one after another.
const rounds = 20
const batchesPerRound = 12
// In every batch of a round: shared by all twelve.
const sharedByAll = 8
// A pool from which each batch takes some, so each of these is shared by a few batches.
const sharedPool = 24
const fromPool = 10
// Only in one batch.
const ownItems = 4

type BulkResult = { index: number; status: 'created' | 'updated' | 'failed'; article_id?: string; external_id?: string; errors?: unknown }
type Answer = { batch: number; status: number; body: { created: number; updated: number; failed: number; results: BulkResult[] } | { code?: string } }

/** A small deterministic random source, so a failing run can be repeated. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffle<T>(items: T[], pick: () => number): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(pick() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

/** The external_ids of each batch of a round, each batch in an order of its own. */
function roundBatches(round: number): string[][] {
  const pick = random(1000 + round)
  const all = Array.from({ length: sharedByAll }, (_, i) => `r${round}-all-${i}`)
  const pool = Array.from({ length: sharedPool }, (_, i) => `r${round}-few-${i}`)
  return Array.from({ length: batchesPerRound }, (_, batch) => {
    const few = shuffle(pool, pick).slice(0, fromPool)
    const own = Array.from({ length: ownItems }, (_, i) => `r${round}-own-${batch}-${i}`)
    return shuffle([...all, ...few, ...own], pick)
  })
}

/** True when the "must come before" edges admit one order of all batches (no cycle). */
function admitsSerialOrder(batches: number, before: Array<[number, number]>): boolean {
  const incoming = new Array<number>(batches).fill(0)
  const next = Array.from({ length: batches }, () => [] as number[])
  for (const [from, to] of before) {
    next[from]!.push(to)
    incoming[to]!++
  }
  const ready = incoming.flatMap((count, batch) => (count === 0 ? [batch] : []))
  let placed = 0
  while (ready.length > 0) {
    const batch = ready.pop()!
    placed++
    for (const to of next[batch]!) if (--incoming[to]! === 0) ready.push(to)
  }
  return placed === batches
}

type Report = { retries: number; problems: string[] }

async function runRounds(databaseUrl: string): Promise<Report> {
  // One token stands for twelve feeds here: LARGE_BODY_PER_CLIENT (8 large requests a client) raised past them.
  const server = await spawnApiServer(databaseUrl, { tenants: 1, timeoutMs: 60_000, env: { LOG_LEVEL: 'warn', LARGE_BODY_PER_CLIENT: '100' } })
  const database = new pg.Client({ connectionString: databaseUrl })
  await database.connect()
  const problems: string[] = []
  try {
    const tenant = server.tenants![0] as ServedTenant
    for (let round = 0; round < rounds; round++) {
      const batches = roundBatches(round)
      const answers: Answer[] = await Promise.all(
        batches.map(async (externalIds, batch) => {
          const response = await fetch(`${server.url}/v1/articles/bulk`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ articles: externalIds.map((externalId) => ({ external_id: externalId, headline: `${externalId} from batch ${batch}` })) }),
          })
          return { batch, status: response.status, body: await response.json() }
        }),
      )
      const refused = answers.filter((answer) => answer.status !== 200)
      for (const answer of refused) problems.push(`round ${round} batch ${answer.batch}: ${answer.status} ${JSON.stringify(answer.body)}`)
      if (refused.length > 0) continue

      // Per external_id: which batch created it, which updated it, and the one article all name.
      const creators = new Map<string, number[]>()
      const updaters = new Map<string, number[]>()
      const articleIds = new Map<string, Set<string>>()
      let createdSum = 0
      for (const answer of answers) {
        const body = answer.body as Extract<Answer['body'], { results: BulkResult[] }>
        createdSum += body.created
        body.results.forEach((result, index) => {
          const externalId = batches[answer.batch]![index]!
          if (result.index !== index || result.external_id !== externalId || result.status === 'failed' || !result.article_id) {
            problems.push(`round ${round} batch ${answer.batch} item ${index} (${externalId}): ${JSON.stringify(result)}`)
            return
          }
          const byStatus = result.status === 'created' ? creators : updaters
          byStatus.set(externalId, [...(byStatus.get(externalId) ?? []), answer.batch])
          articleIds.set(externalId, (articleIds.get(externalId) ?? new Set()).add(result.article_id))
        })
      }
      const distinct = new Set(batches.flat())
      if (createdSum !== distinct.size) problems.push(`round ${round}: ${createdSum} created for ${distinct.size} distinct external_ids`)
      const before: Array<[number, number]> = []
      for (const externalId of distinct) {
        const created = creators.get(externalId) ?? []
        if (created.length !== 1) problems.push(`round ${round}: ${externalId} created by batches [${created.join(', ')}]`)
        if ((articleIds.get(externalId)?.size ?? 0) !== 1) problems.push(`round ${round}: ${externalId} answered as articles ${[...(articleIds.get(externalId) ?? [])].join(', ')}`)
        for (const updater of updaters.get(externalId) ?? []) if (created[0] !== undefined) before.push([created[0], updater])
      }
      if (!admitsSerialOrder(batchesPerRound, before)) problems.push(`round ${round}: no order of the batches explains who created what`)

      // What the database holds: one article per external_id, each with exactly the events its answers promised.
      const { rows } = await database.query<{ external_id: string; articles: string; version: number; created: string; updated: string }>(
        `SELECT a.external_id, count(DISTINCT a.id) AS articles, max(a.version) AS version,
                count(e.id) FILTER (WHERE e.kind = 'article.created') AS created,
                count(e.id) FILTER (WHERE e.kind = 'article.updated') AS updated
         FROM articles a LEFT JOIN events e ON e.tenant_id = a.tenant_id AND e.data->>'article_id' = a.id
         WHERE a.tenant_id = $1 AND a.external_id LIKE $2
         GROUP BY a.external_id`,
        [tenant.id, `r${round}-%`],
      )
      if (rows.length !== distinct.size) problems.push(`round ${round}: ${rows.length} external_ids stored for ${distinct.size} sent`)
      for (const row of rows) {
        const updates = updaters.get(row.external_id)?.length ?? 0
        const expected = { articles: 1, created: 1, updated: updates, version: 1 + updates }
        const actual = { articles: Number(row.articles), created: Number(row.created), updated: Number(row.updated), version: Number(row.version) }
        if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`round ${round}: ${row.external_id} holds ${JSON.stringify(actual)}, answers promised ${JSON.stringify(expected)}`)
      }
    }
    // The server logs each retried attempt (lib/articles/bulk-import.ts); the count is what the run needed.
    const retries = (server.stdout().match(/"msg":"bulk import retried/g) ?? []).length
    return { retries, problems }
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver log: ${server.stderr().slice(-3_000)}`)
  } finally {
    await database.end()
    await server.stop()
  }
}

describe(`${batchesPerRound} concurrent bulk imports with overlapping external_ids, ${rounds} rounds`, () => {
  let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>> | undefined
  afterAll(() => embedded?.stop())

  it('all land on PostgreSQL, as if run one after another', async () => {
    const startedAt = performance.now()
    const report = await runRounds(process.env.DATABASE_URL!)
    console.info(`PostgreSQL: ${rounds}x${batchesPerRound} bulk imports, ${report.retries} retried attempts, ${Math.round(performance.now() - startedAt)} ms`)
    expect(report.problems.slice(0, 20)).toEqual([])
  }, 180_000)

  it('all land on the embedded database, as if run one after another', async () => {
    embedded = await startMigratedEmbeddedDatabase()
    const startedAt = performance.now()
    const report = await runRounds(embedded.url)
    console.info(`embedded: ${rounds}x${batchesPerRound} bulk imports, ${report.retries} retried attempts, ${Math.round(performance.now() - startedAt)} ms`)
    expect(report.problems.slice(0, 20)).toEqual([])
  }, 240_000)
})
