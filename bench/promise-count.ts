/**
 * How many promises one cached `GET /v1/articles/{id}` makes in the service (issue 50: each is
 * CPU, and with Next's AsyncLocalStorage on, promise hooks make each cost several times more).
 * Starts the built service of a checkout with bench/promise-count-preload.mjs, reads one article
 * 200 times to warm it, then counts the promises made by 1,000 more reads, one at a time (so the
 * generation read is not shared between requests, as it is under load).
 *
 *   PROMISE_COUNT_DATABASE=ab_100k npx tsx bench/promise-count.ts [checkout]
 *
 * The database is a seeded bench database (bench/seed-bench-data.ts); REDIS_URL as the bench's.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { waitFor } from './load.ts'

const checkout = path.resolve(process.argv[2] ?? '.')
const database = process.env.PROMISE_COUNT_DATABASE ?? 'newsroom_bench_run'
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`
process.env.DATABASE_URL = databaseUrl
const port = Number(process.env.PROMISE_COUNT_PORT ?? 4390)
const countFile = path.join(mkdtempSync(path.join(tmpdir(), 'promise-count-')), 'count')

const { benchTenantsOf } = await import('./seed-bench-data.ts')
const [big] = await benchTenantsOf(databaseUrl, ['large'])
const client = new pg.Client({ connectionString: databaseUrl })
await client.connect()
const { rows: [article] } = await client.query<{ id: string }>("SELECT id FROM articles WHERE tenant_id = $1 AND status = 'published' ORDER BY id LIMIT 1", [big!.id])
await client.end()

const service = spawn(process.execPath, ['--import', pathToFileURL(path.resolve(import.meta.dirname, 'promise-count-preload.mjs')).href, 'dist/start.mjs'], {
  cwd: checkout,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', SEED: 'false', PORT: String(port), RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000', RATE_LIMIT_STANDARD_PER_MINUTE: '100000000', LOCAL_SECRETS_FILE: '.data/bench-secrets.json', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', RATE_LIMIT_KEY_PREFIX: `newsroom:promise-count:${Date.now()}`, LOG_LEVEL: 'warn', PROMISE_COUNT_FILE: countFile },
})
try {
  await waitFor(`http://127.0.0.1:${port}/v1/openapi.json`)
  const read = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/articles/${article!.id}`, { headers: { authorization: `Bearer ${big!.token}`, 'accept-encoding': 'identity' } })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`the service answered ${response.status}`)
  }
  const count = async () => {
    service.kill('SIGUSR2')
    await new Promise((resolve) => setTimeout(resolve, 300))
    return Number(readFileSync(countFile, 'utf8'))
  }
  for (let i = 0; i < 200; i++) await read()
  const before = await count()
  const reads = 1000
  for (let i = 0; i < reads; i++) await read()
  console.log(`${checkout}: ${((await count()) - before) / reads} promises per cached GET /v1/articles/{id}`)
} finally {
  service.kill('SIGTERM')
}
