/**
 * One CPU profile of the cold list under load (issue 50), of a built service or of the
 * framework-free baseline: started with --cpu-prof, warmed up, left idle for 3 s (the mark
 * bench/cpu-profile-summary.ts counts from), then asked PROFILE_REQUESTS cold list pages (a new
 * published_before each, as interleaved-ab's `list`) at PROFILE_CONNECTIONS, and stopped.
 *
 *   PROFILE_TARGET=/path/to/build|baseline PROFILE_DIR=/tmp/prof PROFILE_DATABASE=<bench copy> \
 *     PROFILE_PORT=4610 npx tsx bench/profile-cold-list.ts
 *
 * PROFILE_PATH=cached profiles a cached `GET /v1/articles/{id}` (the same article each time) instead.
 * Prints the requests answered and the process's CPU over them; then summarise with
 * `npx tsx bench/cpu-profile-summary.ts <dir>/*.cpuprofile <requests> 40 <fromSeconds>`.
 */
import { spawn } from 'node:child_process'
import pg from 'pg'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot, measurePostgresOf } from './process-cpu.ts'
import { startCommand } from '../scripts/start-command.ts'

const target = process.env.PROFILE_TARGET ?? 'baseline'
const dir = process.env.PROFILE_DIR ?? '/tmp/cold-list-profile'
const database = process.env.PROFILE_DATABASE ?? 'newsroom_bench_run'
const port = Number(process.env.PROFILE_PORT ?? 4610)
const requests = Number(process.env.PROFILE_REQUESTS ?? 2000)
const concurrency = Number(process.env.PROFILE_CONNECTIONS ?? 32)
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`
process.env.DATABASE_URL = databaseUrl
measurePostgresOf(database)

const { benchTenantsOf } = await import('./seed-bench-data.ts')
const [big] = await benchTenantsOf(databaseUrl, ['large'])
const client = new pg.Client({ connectionString: databaseUrl })
await client.connect()
const { rows: [window] } = await client.query<{ lo: Date; hi: Date }>('SELECT min(published_at) AS lo, max(published_at) AS hi FROM articles WHERE tenant_id = $1', [big!.id])
await client.end()

// PROFILE_NODE_FLAGS replaces the profiler's flags (--trace-gc, say, to see why the collector runs).
const flags = process.env.PROFILE_NODE_FLAGS ?? `--cpu-prof --cpu-prof-dir=${dir}`
const spawnedAt = performance.now()
const child =
  target === 'baseline'
    ? spawn(process.execPath, [...flags.split(' '), '--import', 'tsx', 'bench/baseline-server.ts', String(port)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DATABASE_URL: databaseUrl } })
    : (() => {
        const [shell, args] = startCommand(target, { nodeFlags: flags })
        return spawn(shell, args, {
          cwd: target,
          stdio: ['ignore', process.env.PROFILE_NODE_FLAGS ? 'inherit' : 'ignore', 'inherit'],
          env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', SEED: 'false', PORT: String(port), RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000', RATE_LIMIT_STANDARD_PER_MINUTE: '100000000', LOCAL_SECRETS_FILE: '.data/bench-secrets.json', REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_KEY_PREFIX: `newsroom:profile:${Date.now()}`, LOG_LEVEL: 'warn' },
        })
      })()
process.on('exit', () => child.kill('SIGTERM'))
await waitFor(`http://127.0.0.1:${port}${target === 'baseline' ? '/' : '/v1/openapi.json'}`)

// PROFILE_PATH=cached: one article asked again and again (the response cache's warm read) instead.
const cachedArticle = process.env.PROFILE_PATH === 'cached' ? (await (await fetch(`http://127.0.0.1:${port}/v1/articles?limit=1`, { headers: { authorization: `Bearer ${big!.token}` } })).json()).items[0].article_id : undefined
const pathOf = () =>
  cachedArticle ? `/v1/articles/${cachedArticle}` : `/v1/articles?limit=50&published_before=${new Date(window!.lo.getTime() + Math.random() * (window!.hi.getTime() - window!.lo.getTime())).toISOString()}`
const run = async (count: number) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++
        const response = await fetch(`http://127.0.0.1:${port}${pathOf()}`, { headers: { authorization: `Bearer ${big!.token}`, 'accept-encoding': 'identity' } })
        await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`${response.status}`)
      }
    }),
  )
}
await run(400)
await new Promise((resolve) => setTimeout(resolve, 3000))
const before = cpuSnapshot(child.pid!)
const started = performance.now()
// The cached read is driven as the bench drives it (autocannon in its own process, PROFILE_SECONDS):
// a client in this process would be slower than the service and leave it idle between requests.
const answered = cachedArticle
  ? (await load({ url: `http://127.0.0.1:${port}`, method: 'GET', path: pathOf(), token: big!.token, connections: concurrency, duration: Number(process.env.PROFILE_SECONDS ?? 15) })).requests
  : (await run(requests), requests)
const seconds = (performance.now() - started) / 1000
const cpu = cpuPerRequest(before, cpuSnapshot(child.pid!), answered)
// The profile starts with the process: the summary counts from here (its `from seconds`).
const fromSeconds = Number(((started - spawnedAt) / 1000).toFixed(1))
console.log(JSON.stringify({ target, fromSeconds, requests: answered, seconds: Number(seconds.toFixed(1)), rps: Number((answered / seconds).toFixed(1)), serverUs: cpu.server, postgresUs: cpu.postgres }))
await new Promise<void>((resolve) => {
  child.once('exit', () => resolve())
  child.kill('SIGTERM')
})
