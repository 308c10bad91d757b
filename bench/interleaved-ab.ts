/**
 * Two builds of the service on one database, asked the same requests in alternating blocks, so
 * that the machine's fast and slow phases fall on both alike: the service's and PostgreSQL's CPU
 * a request, and the latency, for each. For comparing a change against the build before it, where
 * two bench runs minutes apart differ more than the change does.
 *
 *   AB_SIDES=/tmp/bench-old,/tmp/bench-new AB_DATABASE=newsroom_bench_run npx tsx bench/interleaved-ab.ts
 *
 * Each side is a checkout with its `npm run build` done, started as its own package.json says. AB_PATHS names the requests: `phrase`, `rare`
 * (a search each, a new `updated_before` every request, as the bench's "cache cold" rows), `list`
 * (a list page with a new `published_before` every request, as the bench's cold list), `feed`
 * (the changes feed's first page, which is never cached), `deepfeed` (the feed at offset 50,000,
 * as the bench's row), `cached` (one article read again and
 * again, the cache warm: the ceiling rows' request, driven by autocannon for AB_SECONDS a block
 * at AB_CONNECTIONS, its CPU counted per request answered; AB_CACHED_AMONG=n has each service
 * keep n other answers first). AB_LOG_LEVEL sets the services'
 * LOG_LEVEL (default warn; info to count the per-request log line). AB_PORT_BASE: the two
 * services' ports (4301 and 4302 unless set).
 *
 * Writes (AB_PATHS `create`, `patch`, `transition`: the bench's POST /v1/articles, PATCH of
 * another draft's tags each request, and a move of another draft to in-review each request),
 * driven by autocannon at AB_CONNECTIONS, AB_REQUESTS a block. Events go to a stand-in for Inngest,
 * as in the bench. AB_BASELINE=1 adds bench/baseline-server.ts as a third side of the write
 * blocks (its transition moves in-review to approved, as the bench's), so the service's ratio to
 * the baseline comes from blocks alternated in one run rather than from rows minutes apart.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import pg from 'pg'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot, measurePostgresOf } from './process-cpu.ts'
import { sampleMemory } from './process-memory.ts'
import { startCommand } from '../scripts/start-command.ts'

const sides = (process.env.AB_SIDES ?? '').split(',').filter(Boolean)
if (sides.length !== 2) throw new Error('AB_SIDES: two build directories, comma-separated')
const database = process.env.AB_DATABASE ?? 'newsroom_bench_run'
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`
process.env.DATABASE_URL = databaseUrl
const rounds = Number(process.env.AB_ROUNDS ?? 6)
const perBlock = Number(process.env.AB_REQUESTS ?? 300)
const concurrency = Number(process.env.AB_CONNECTIONS ?? 1)
const queries: Record<string, string> = { phrase: '"riverside plan"', rare: createHash('md5').update('4242').digest('hex') }
const kinds = (process.env.AB_PATHS ?? 'phrase,rare').split(',')

// Only this database's backends count: not another bench's or test run's on the same server.
measurePostgresOf(database)

const { benchTenantsOf } = await import('./seed-bench-data.ts')
const [big] = await benchTenantsOf(databaseUrl, ['large'])
const published = new pg.Client({ connectionString: databaseUrl })
await published.connect()
const { rows: [publicationWindow] } = await published.query<{ lo: Date; hi: Date }>('SELECT min(published_at) AS lo, max(published_at) AS hi FROM articles WHERE tenant_id = $1', [big!.id])
const { rows: [oneArticle] } = await published.query<{ id: string }>("SELECT id FROM articles WHERE tenant_id = $1 AND status = 'published' ORDER BY id LIMIT 1", [big!.id])
// AB_CACHED_AMONG=<n> (with `cached`): each service first keeps n other articles' answers, as a
// newsroom's busy instance holds thousands, so the hot one is read from a full cache.
const cachedAmong = Number(process.env.AB_CACHED_AMONG ?? 0)
const others = cachedAmong > 0 ? (await published.query<{ id: string }>('SELECT id FROM articles WHERE tenant_id = $1 ORDER BY id DESC LIMIT $2', [big!.id, cachedAmong])).rows.map((row) => row.id) : []
await published.end()
const children: ChildProcess[] = []
// AB_SIDE_ENV_0 / AB_SIDE_ENV_1 ('NAME=value;NAME=value'): settings for one side only, so that one
// build can be compared with itself under two settings.
const sideEnv = (index: number): Record<string, string> =>
  Object.fromEntries(
    (process.env[`AB_SIDE_ENV_${index}`] ?? '')
      .split(';')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  )
process.on('exit', () => children.forEach((child) => child.kill('SIGTERM')))
const writeKinds = ['create', 'patch', 'transition']
const writing = kinds.some((kind) => writeKinds.includes(kind))
// Writes hand their events to the queue as in the bench: to a stand-in for Inngest.
const { startFakeInngest } = writing ? await import('../tests/support/fake-inngest.ts') : { startFakeInngest: null }
const fakeInngest = startFakeInngest ? await startFakeInngest() : null
// AB_PORT_BASE: the two services' ports are it and the next (4301, 4302 unless given), so that
// two comparisons on one machine do not collide.
const portBase = Number(process.env.AB_PORT_BASE ?? 4301)
const ports = [portBase, portBase + 1]
for (const [index, dir] of sides.entries()) {
  // AB_PROFILE=<dir>: each side writes a CPU profile into <dir>/<side's index> when it is stopped
  // at the end (AB_HEAP_PROFILE=<dir> a sampling profile of its allocations); AB_TRACE_GC=1
  // shows each side's --trace-gc lines.
  const profileFlags = [
    process.env.AB_PROFILE ? `--cpu-prof --cpu-prof-dir=${process.env.AB_PROFILE}/${index}` : '',
    process.env.AB_HEAP_PROFILE ? `--heap-prof --heap-prof-dir=${process.env.AB_HEAP_PROFILE}/${index}` : '',
    process.env.AB_TRACE_GC ? '--trace-gc' : '',
  ]
    .filter(Boolean)
    .join(' ')
  // Each side as its own `npm start` says (node's flags included, which a change may be).
  const [shell, args] = startCommand(dir, { nodeFlags: profileFlags || undefined })
  const child = spawn(shell, args, {
    cwd: dir,
    stdio: ['ignore', process.env.AB_TRACE_GC ? 'inherit' : 'ignore', 'inherit'],
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', SEED: 'false', PORT: String(ports[index]), RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000', RATE_LIMIT_STANDARD_PER_MINUTE: '100000000', LOCAL_SECRETS_FILE: '.data/bench-secrets.json', REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_KEY_PREFIX: `newsroom:ab:${Date.now()}:${index}`, LOG_LEVEL: process.env.AB_LOG_LEVEL ?? 'warn', ...(fakeInngest && { INNGEST_DEV: fakeInngest.url }), ...sideEnv(index) },
  })
  children.push(child)
}
for (const port of ports) await waitFor(`http://127.0.0.1:${port}/v1/openapi.json`)
// AB_NEXT_FIRST=0,1 (the sides' indexes): each side named serves one request through Next (next-auth's /api/auth/csrf) before any block, as a
// production instance that also serves the portal has: Next's AsyncLocalStorage then turns
// on Node's promise hooks for the rest of the process, which every /v1 request pays for.
for (const index of (process.env.AB_NEXT_FIRST ?? '').split(',').filter(Boolean).map(Number)) await fetch(`http://127.0.0.1:${ports[index]}/api/auth/csrf`).then((response) => response.arrayBuffer())
// AB_BASELINE=1: the framework-free baseline as a third side of the write blocks.
const withBaseline = writing && process.env.AB_BASELINE === '1'
if (withBaseline) {
  ports.push(portBase + 2)
  children.push(spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts', String(portBase + 2)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DATABASE_URL: databaseUrl } }))
  await waitFor(`http://127.0.0.1:${portBase + 2}/`)
}
const sideName = (side: number) => sides[side] ?? 'baseline'
const memory = children.map((child) => sampleMemory(child.pid!))

let stamp = 0
// Each request new to the response cache: a search's updated_before, or a list's published_before
// somewhere in the newsroom's years of publications (the bench's cold list).
const pathOf = (kind: string) => {
  if (kind === 'feed') return '/v1/articles?sort=updated_at&limit=50'
  if (kind === 'deepfeed') return '/v1/articles?sort=updated_at&limit=50&offset=50000'
  if (kind === 'list') return `/v1/articles?limit=50&published_before=${new Date(publicationWindow!.lo.getTime() + Math.random() * (publicationWindow!.hi.getTime() - publicationWindow!.lo.getTime())).toISOString()}`
  return `/v1/articles?q=${encodeURIComponent(queries[kind]!)}&limit=50&updated_before=${new Date(Date.UTC(2100, 0, 1) + stamp++).toISOString()}`
}
const ask = async (port: number, kind: string) => {
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}${pathOf(kind)}`, { headers: { authorization: `Bearer ${big!.token}`, 'accept-encoding': 'identity' } })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${port}: ${response.status}`)
  return performance.now() - started
}
const blockSeconds = Number(process.env.AB_SECONDS ?? 5)
// A cached read's block is a timed autocannon run; returns the requests answered and their latencies' p50/p99.
const cachedBlock = async (port: number) => {
  const result = await load({ url: `http://127.0.0.1:${port}`, method: 'GET', path: `/v1/articles/${oneArticle!.id}`, token: big!.token, connections: concurrency, duration: blockSeconds })
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${port}: ${result.errors} errors, ${result.non2xx} non-2xx`)
  return result
}
const block = async (port: number, kind: string) => {
  const latencies: number[] = []
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < perBlock) {
      next++
      latencies.push(await ask(port, kind))
    }
  }))
  return latencies
}

// Each move block takes articles no block took before: drafts (to move to in-review) and, for
// the baseline's move, articles in review.
const writeTargets = writing
  ? await (async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    const ids = async (status: string) => (await client.query<{ id: string }>(`SELECT id FROM articles WHERE tenant_id = $1 AND status = $2 ORDER BY id DESC`, [big!.id, status])).rows.map((row) => row.id)
    const [drafts, inReview] = [await ids('draft'), await ids('in-review')]
    await client.end()
    return { drafts, inReview, patchable: [...drafts].reverse() }
  })()
  : { drafts: [], inReview: [], patchable: [] }
// A PATCH leaves a draft a draft: the PATCH blocks go round all the drafts (another article each
// request within a block), so that only the moves use articles up.
let patched = 0
const patchTargets = (count: number) => Array.from({ length: count }, () => writeTargets.patchable[patched++ % writeTargets.patchable.length]!)
const take = (from: string[], count: number) => {
  if (from.length < count) throw new Error(`not enough articles left for the write blocks (${from.length} < ${count}); fewer AB_ROUNDS or AB_REQUESTS`)
  return from.splice(0, count)
}
const writeBlock = async (side: number, kind: string) => {
  const baseline = side === 2
  const url = `http://127.0.0.1:${ports[side]}`
  const scenario =
    kind === 'create'
      ? { method: 'POST', path: '/v1/articles', body: JSON.stringify({ headline: 'Load test article', lede: 'Created under load.', body: '<p>Bench.</p>'.repeat(50), tags: ['bench'] }) }
      : kind === 'patch'
        ? { method: 'PATCH', paths: patchTargets(perBlock).map((id) => `/v1/articles/${id}`), body: JSON.stringify({ tags: ['bench', baseline ? 'baseline' : 'patched'] }) }
        : baseline
          ? { method: 'POST', paths: take(writeTargets.inReview, perBlock).map((id) => `/v1/articles/${id}/transitions`), body: JSON.stringify({ to_state: 'approved' }) }
          : { method: 'POST', paths: take(writeTargets.drafts, perBlock).map((id) => `/v1/articles/${id}/transitions`), body: JSON.stringify({ to_state: 'in-review' }) }
  const result = await load({ url, token: big!.token, connections: concurrency, amount: perBlock, ...scenario })
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url} ${kind}: ${result.errors} errors, ${result.non2xx} non-2xx`)
  return result
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!
for (const kind of kinds) {
  if (kind === 'cached') {
    // Asked twice each: an answer is kept the second time its query is asked (lib/doorkeeper.ts).
    for (const port of ports) {
      for (let turn = 0; turn < 2; turn++) {
        for (let i = 0; i < others.length; i += 32) {
          await Promise.all(others.slice(i, i + 32).map(async (id) => {
            const response = await fetch(`http://127.0.0.1:${port}/v1/articles/${id}`, { headers: { authorization: `Bearer ${big!.token}` } })
            await response.arrayBuffer()
          }))
        }
      }
    }
    for (const port of ports) await cachedBlock(port)
    const perSide = sides.map(() => ({ cpu: [] as number[], rps: [] as number[] }))
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const before = cpuSnapshot(children[side]!.pid!)
        const result = await cachedBlock(ports[side]!)
        perSide[side]!.cpu.push(cpuPerRequest(before, cpuSnapshot(children[side]!.pid!), result.requests).server)
        perSide[side]!.rps.push(result.rps)
      }
    }
    for (const [side, result] of perSide.entries()) {
      console.log(`cached (${concurrency} connections) ${sides[side]}: service ${Math.round(median(result.cpu))} µs a request (median of ${rounds} blocks of ${blockSeconds} s; blocks: ${result.cpu.map(Math.round).join(' ')}), req/s ${result.rps.map(Math.round).join(' ')}`)
    }
    continue
  }
  if (writeKinds.includes(kind)) {
    const writers = ports.map((_, side) => side)
    for (const side of writers) await writeBlock(side, kind)
    const perSide = writers.map(() => ({ service: [] as number[], postgres: [] as number[], redis: [] as number[], rps: [] as number[], p50: [] as number[], p99: [] as number[] }))
    for (let round = 0; round < rounds; round++) {
      // Each side first as often as last: the order turns round every round.
      const order = writers.map((_, index) => writers[(index + round) % writers.length]!)
      for (const side of round % 2 === 0 ? order : order.reverse()) {
        const before = cpuSnapshot(children[side]!.pid!)
        const result = await writeBlock(side, kind)
        const cpu = cpuPerRequest(before, cpuSnapshot(children[side]!.pid!), result.requests)
        perSide[side]!.service.push(cpu.server)
        perSide[side]!.postgres.push(cpu.postgres)
        perSide[side]!.redis.push(cpu.redis)
        perSide[side]!.rps.push(result.rps)
        perSide[side]!.p50.push(result.p50)
        perSide[side]!.p99.push(result.p99)
      }
    }
    for (const [side, result] of perSide.entries()) {
      console.log(`${kind} (${concurrency} connections) ${sideName(side)}: server ${Math.round(median(result.service))} µs, PostgreSQL ${Math.round(median(result.postgres))} µs, Redis ${Math.round(median(result.redis))} µs a request (medians of ${rounds} blocks of ${perBlock}; blocks: ${result.service.map(Math.round).join(' ')} / ${result.postgres.map(Math.round).join(' ')}), req/s ${Math.round(median(result.rps))} (blocks: ${result.rps.map(Math.round).join(' ')}), p50 ${median(result.p50)} ms, p99 ${median(result.p99)} ms`)
    }
    if (withBaseline) {
      for (const side of [0, 1]) {
        const ratios = perSide[side]!.rps.map((rps, round) => rps / perSide[2]!.rps[round]!)
        console.log(`${kind}: ${sides[side]} / baseline req/s, block by block: ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`)
      }
    }
    continue
  }
  if (kind !== 'list' && kind !== 'feed' && kind !== 'deepfeed' && !queries[kind]) throw new Error(`AB_PATHS: ${kind} is not phrase, rare, list, feed, deepfeed or cached`)
  for (const port of ports.slice(0, 2)) await block(port, kind)
  const results = sides.map(() => ({ service: [] as number[], postgres: [] as number[], latencies: [] as number[] }))
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0]
    for (const side of order) {
      const before = cpuSnapshot(children[side]!.pid!)
      const latencies = await block(ports[side]!, kind)
      const cpu = cpuPerRequest(before, cpuSnapshot(children[side]!.pid!), perBlock)
      results[side]!.service.push(cpu.server)
      results[side]!.postgres.push(cpu.postgres)
      results[side]!.latencies.push(...latencies)
    }
  }
  for (const [side, result] of results.entries()) {
    console.log(`${kind} (${concurrency} connection${concurrency > 1 ? 's' : ''}) ${sides[side]}: service ${Math.round(median(result.service))} µs, PostgreSQL ${Math.round(median(result.postgres))} µs a request (medians of ${rounds} blocks of ${perBlock}; blocks: ${result.service.map(Math.round).join(' ')} / ${result.postgres.map(Math.round).join(' ')}), p50 ${median(result.latencies).toFixed(1)} ms, p99 ${percentile(result.latencies, 0.99).toFixed(1)} ms, peak RSS so far ${memory[side]!.peakMb()} MB`)
  }
}
// Stopped and waited for, so that a profile (AB_PROFILE) is written before this ends.
await Promise.all(children.map((child) => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM') })))
await fakeInngest?.stop()
process.exit(0)
