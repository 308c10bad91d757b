import { afterAll, describe, expect, it } from 'vitest'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer, type ServedTenant } from '../support/spawn-api-server.ts'
import { runMixedLoad, type LoadReport } from './mixed-load.ts'

// 32 clients as the issue describes; a fixed count, so the run is bounded on any machine.
const load = { clients: 32, requestsPerClient: 12, seed: 7 }

function expectTruth(report: LoadReport) {
  // Every broken promise at once, so a failure says what went wrong and where.
  expect(report.violations, JSON.stringify(report.violations.slice(0, 20), null, 1)).toEqual([])
  expect(Object.keys(report.byStatus).filter((status) => Number(status) >= 500 || status === '401')).toEqual([])
  for (const tenant of report.tenants) {
    expect(tenant.foreignRows, `${tenant.marker} lists another newsroom's rows`).toBe(0)
    expect(tenant.listedTotal, `${tenant.marker} holds what its answers promised`).toBe(tenant.expectedTotal)
  }
  expect(report.published.length, 'the workflow part published something').toBeGreaterThan(0)
  for (const article of report.published) expect(article.publishedEvents, `article.published events of ${article.articleId}`).toBe(1)
  expect(report.unpublishedWithEvents).toEqual([])
}

async function runAgainst(databaseUrl: string): Promise<LoadReport> {
  const server = await spawnApiServer(databaseUrl, { tenants: 2, timeoutMs: 60_000 })
  try {
    const [first, second] = server.tenants as [ServedTenant, ServedTenant]
    return await runMixedLoad(server.url, databaseUrl, [first, second], load)
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver log: ${server.stderr().slice(-3_000)}`)
  } finally {
    await server.stop()
  }
}

describe('32 concurrent clients, mixed reads and writes in two newsrooms, every answer checked', () => {
  let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>> | undefined
  afterAll(() => embedded?.stop())

  it('on the embedded database, as npm run dev starts it', async () => {
    embedded = await startMigratedEmbeddedDatabase()
    const report = await runAgainst(embedded.url)
    expectTruth(report)
  }, 240_000)

  it('on PostgreSQL, held to the same standard', async () => {
    const report = await runAgainst(process.env.DATABASE_URL!)
    expectTruth(report)
  }, 240_000)
})
