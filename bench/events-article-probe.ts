/**
 * The bench's `GET /v1/events?article_id=…` row under the conditions a full run may leave it in,
 * side by side in one run (issue 50: 171 req/s, p99 850 ms in the full run at 1,000,000 events,
 * 5,917 req/s alone). Each block asks a fresh set of article ids, so every block starts with
 * the response cache cold for it, as the row does; the conditions alternate round by round, so
 * that the machine's phases fall on all of them alike. Per block: req/s, latency, the service's
 * and this database's PostgreSQL CPU per request, the machine's iowait and idle per request, and
 * how many requests read the database (scans of events_article_order_idx, from pg_stat_user_indexes:
 * only a request the response cache does not answer reads events by article).
 *
 *   PROBE_DATABASE=newsroom_bench_events PROBE_PORT=3700 npx tsx bench/events-article-probe.ts
 *
 * Conditions (PROBE_CONDITIONS, comma-separated):
 *   row       the bench's row: 2,000 URLs cycled, each asked a few times (kept from its second asking)
 *   evicted   the same, after this database's events heap and article index are dropped from the
 *             OS page cache (posix_fadvise DONTNEED on their files; needs to read the data directory)
 *   misses    every request another article (20,000 URLs): what the row costs when no URL is asked
 *             a second time, as at 171 req/s (1,710 requests for 2,000 URLs)
 *   slowstart the row, with the first PROBE_SLOW_SECONDS of it at one connection: a row whose start
 *             is slow for any reason asks few URLs twice
 *   contended the row while PROBE_HOGS busy loops (default 3) compete for the two cores, as another
 *             session's build or bench would; they inherit this script's niceness (run it with nice)
 *   kept      the row as the bench now measures it: its URLs asked twice before it, so every
 *             answer is kept before the row starts, however fast it then runs
 *   kept+contended  both
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot, measurePostgresOf } from './process-cpu.ts'
import { startCommand } from '../scripts/start-command.ts'

const database = process.env.PROBE_DATABASE ?? 'newsroom_bench_events'
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`
const port = Number(process.env.PROBE_PORT ?? 3700)
const rounds = Number(process.env.PROBE_ROUNDS ?? 2)
const conditions = (process.env.PROBE_CONDITIONS ?? 'row,evicted,misses').split(',')
process.env.DATABASE_URL = databaseUrl
measurePostgresOf(database)

const { benchTenantsOf } = await import('./seed-bench-data.ts')
const [big] = await benchTenantsOf(databaseUrl, ['large'])
const admin = new pg.Client({ connectionString: databaseUrl })
await admin.connect()
const articles = Number((await admin.query(`SELECT count(*) FROM articles WHERE tenant_id = $1`, [big!.id])).rows[0].count)

/** The files of the events heap and its article index, to drop from the page cache. */
async function eventFiles(): Promise<string[]> {
  const dataDirectory = (await admin.query('SHOW data_directory')).rows[0].data_directory as string
  const { rows } = await admin.query(`SELECT pg_relation_filepath(c) AS file FROM unnest(ARRAY['events'::regclass, 'events_article_order_idx'::regclass]) AS c`)
  return rows.flatMap(({ file }) => {
    const full = path.join(dataDirectory, file)
    const base = path.basename(full)
    return readdirSync(path.dirname(full)).filter((name) => name === base || name.startsWith(`${base}.`)).map((name) => path.join(path.dirname(full), name))
  })
}

// Node has no posix_fadvise: Python's does it, for these files only (never the whole machine's cache).
async function evict() {
  execFileSync('python3', ['-c', 'import os,sys\nfor f in sys.argv[1:]:\n fd=os.open(f,os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)', ...(await eventFiles())])
}

// PROBE_PROFILE=<dir>: the service writes a CPU profile there when the probe stops it.
const [shell, args] = startCommand(undefined, { nodeFlags: process.env.PROBE_PROFILE ? `--cpu-prof --cpu-prof-dir=${process.env.PROBE_PROFILE}` : undefined })
const service = spawn(shell, args, {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    SEED: 'false',
    PORT: String(port),
    RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000',
    RATE_LIMIT_STANDARD_PER_MINUTE: '100000000',
    LOCAL_SECRETS_FILE: '.data/bench-secrets.json',
    REDIS_URL: 'redis://127.0.0.1:6379',
    RATE_LIMIT_KEY_PREFIX: `newsroom:probe:${Date.now()}`,
    LOG_LEVEL: 'warn',
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64url'),
  },
})
service.on('exit', (code) => {
  if (code !== null && code !== 0 && code !== 143) process.exit(1)
})
process.on('exit', () => service.kill('SIGTERM'))
await waitFor(`http://127.0.0.1:${port}/v1/openapi.json`)
const app = `http://127.0.0.1:${port}`
await load({ url: app, method: 'GET', path: '/v1/events?limit=50', token: big!.token, duration: 3 })

// Fresh ids for every block, at the bench's stride (37): block k asks the ids k, k + 37, k + 74, …,
// so no two blocks share an id (37 blocks at most, 27,000 ids each).
let blockNumber = 0
const articleId = (n: number) => `art_bench${big!.id}_${String(n).padStart(7, '0')}`
const urls = (count: number) => {
  const start = blockNumber++
  if (start >= 37 || (count - 1) * 37 + start >= articles) throw new Error('more blocks or ids than the archive has distinct ones for')
  return Array.from({ length: count }, (_, i) => `/v1/events?limit=50&article_id=${articleId(start + i * 37)}`)
}

async function askAll(paths: string[]) {
  let next = 0
  const worker = async () => {
    while (next < paths.length) await (await fetch(`${app}${paths[next++]}`, { headers: { authorization: `Bearer ${big!.token}` } })).arrayBuffer()
  }
  await Promise.all(Array.from({ length: 8 }, worker))
}

type Block = { condition: string; round: number; rps: number; p50: number; p99: number; server: number; postgres: number; iowait: number; idle: number; steal: number; requests: number; misses: number }
// Backends report their counts when idle, at most once a second: read after they have.
async function articleIndexScans(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  await admin.query('SELECT pg_stat_clear_snapshot()')
  return Number((await admin.query(`SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'events_article_order_idx'`)).rows[0].idx_scan)
}
const blocks: Block[] = []
async function block(condition: string, round: number) {
  let paths = urls(condition === 'misses' ? 20_000 : 2_000)
  if (condition === 'evicted') await evict()
  if (condition.startsWith('kept')) for (let asking = 0; asking < 2; asking++) await askAll(paths)
  const hogs = condition.endsWith('contended') ? Array.from({ length: Number(process.env.PROBE_HOGS ?? 3) }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })) : []
  const scansBefore = await articleIndexScans()
  const before = cpuSnapshot(service.pid!)
  let requests = 0
  let result = { rps: 0, p50: 0, p99: 0, requests: 0 }
  if (condition === 'slowstart') {
    const slow = await load({ url: app, token: big!.token, method: 'GET', paths, connections: 1, duration: Number(process.env.PROBE_SLOW_SECONDS ?? 2) })
    requests += slow.requests
  }
  result = await load({ url: app, token: big!.token, method: 'GET', paths })
  requests += result.requests
  for (const hog of hogs) hog.kill('SIGKILL')
  const cpu = cpuPerRequest(before, cpuSnapshot(service.pid!), requests)
  const misses = (await articleIndexScans()) - scansBefore
  const row: Block = { condition, round, rps: Math.round(result.rps), p50: result.p50, p99: result.p99, server: cpu.server, postgres: cpu.postgres, iowait: cpu.machine!.iowait, idle: cpu.machine!.idle, steal: cpu.machine!.steal, requests, misses }
  blocks.push(row)
  console.log(JSON.stringify(row))
  paths = []
}

for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 0 ? [...conditions].reverse() : conditions
  for (const condition of order) await block(condition, round)
}
await admin.end()
console.log('\n| condition | round | req/s | p50 ms | p99 ms | requests | read the database | CPU µs/req server / PostgreSQL | iowait / idle / steal µs/req |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const b of blocks) console.log(`| ${b.condition} | ${b.round} | ${b.rps} | ${b.p50} | ${b.p99} | ${b.requests} | ${b.misses} (${Math.round((b.misses / Math.max(1, b.requests)) * 100)} %) | ${b.server} / ${b.postgres} | ${b.iowait} / ${b.idle} / ${b.steal} |`)
await new Promise<void>((resolve) => {
  service.once('exit', () => resolve())
  service.kill('SIGTERM')
})
process.exit(0)
