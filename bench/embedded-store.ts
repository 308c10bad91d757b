/**
 * The embedded store's rows of `npm run bench`: the production server on its embedded default
 * (PGlite behind its socket server, no DATABASE_URL, no Redis), seeded with BENCH_EMBEDDED_ARTICLES
 * articles, driven like the PostgreSQL service. Run by bench/run.ts as its own process, because
 * lib/ reads DATABASE_URL once; prints its rows as JSON on the last line of stdout.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { embeddedDatabaseUrl } from '../lib/db/embedded-config.ts'
import { load, waitFor } from './load.ts'
import type { BenchRow } from './report.ts'
import { startCommand } from '../scripts/start-command.ts'

const appPort = Number(process.env.BENCH_EMBEDDED_PORT ?? 3410)
const databasePort = appPort + 10
const articleCount = Number(process.env.BENCH_EMBEDDED_ARTICLES ?? 10_000)
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-pglite-'))

const log = (message: string) => console.error(`[bench embedded ${new Date().toISOString().slice(11, 19)}] ${message}`)

// The embedded default: nothing configured but where its files and ports go.
const env: NodeJS.ProcessEnv = { ...process.env }
for (const name of ['DATABASE_URL', 'REDIS_URL', 'INNGEST_DEV', 'INNGEST_EVENT_KEY', 'INNGEST_SIGNING_KEY', 'INNGEST_BASE_URL']) delete env[name]
Object.assign(env, {
  EMBEDDED_DB_DIR: dataDir,
  EMBEDDED_DB_PORT: String(databasePort),
  SEED: 'false',
  PORT: String(appPort),
  NODE_ENV: 'production',
  NEXT_TELEMETRY_DISABLED: '1',
  LOCAL_SECRETS_FILE: path.join(dataDir, 'secrets.json'),
  // The limiter still runs; its limits are raised so it measures its cost, not its refusals.
  RATE_LIMIT_STANDARD_PER_MINUTE: '100000000',
  RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000',
})
const service = spawn(...startCommand(), { stdio: ['ignore', 'ignore', 'inherit'], env })
const stop = () => {
  service.kill('SIGTERM')
}
process.on('exit', stop)

try {
  const app = `http://127.0.0.1:${appPort}`
  await waitFor(`${app}/v1/openapi.json`, 300_000)
  const databaseUrl = embeddedDatabaseUrl(databasePort)
  process.env.DATABASE_URL = databaseUrl
  log(`seeding ${articleCount.toLocaleString('en')} articles through the running service's database`)
  const { seedBenchData } = await import('./seed-bench-data.ts')
  const [tenant] = await seedBenchData(databaseUrl, [{ name: 'embedded', plan: 'enterprise', articles: articleCount }])
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const draftIds = (await client.query(`SELECT id FROM articles WHERE tenant_id = $1 AND status = 'draft' ORDER BY id`, [tenant!.id])).rows.map((row) => row.id as string)
  await client.end()
  const sampleId = `art_bench${tenant!.id}_${String(4242).padStart(7, '0')}`
  const half = Math.floor(draftIds.length / 2)

  await load({ url: app, method: 'GET', path: '/v1/articles?limit=50', token: tenant!.token, duration: 3 })
  const rows: BenchRow[] = []
  const measure = async (name: string, scenario: Record<string, unknown>) => {
    log(name)
    rows.push({ name, target: 'embedded' as const, ...(await load({ url: app, token: tenant!.token, ...scenario })), peakRssMb: null })
  }
  await measure('GET /v1/articles?limit=50', { method: 'GET', path: '/v1/articles?limit=50' })
  await measure('GET /v1/articles/{id}', { method: 'GET', path: `/v1/articles/${sampleId}` })
  await measure('POST /v1/articles', { method: 'POST', path: '/v1/articles', body: JSON.stringify({ headline: 'Load test article', lede: 'Created under load.', body: '<p>Bench.</p>'.repeat(50), tags: ['bench'] }) })
  await measure('PATCH /v1/articles/{id}', { method: 'PATCH', paths: draftIds.slice(half).map((id) => `/v1/articles/${id}`), body: JSON.stringify({ tags: ['bench', 'patched'] }) })
  await measure('POST /v1/articles/{id}/transitions', {
    method: 'POST',
    paths: draftIds.slice(0, half).map((id) => `/v1/articles/${id}/transitions`),
    body: JSON.stringify({ to_state: 'in-review' }),
    amount: half,
  })
  console.log(JSON.stringify({ articles: articleCount, rows }))
} finally {
  stop()
  await new Promise((resolve) => service.once('exit', resolve).once('error', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)
