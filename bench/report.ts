import type { CpuShares, MachineTimes } from './process-cpu.ts'
import type { RequestLogCost, WalWork } from './request-log-cost.ts'
import type { EditorAwarenessHttp } from './editor-awareness-http.ts'

export type BenchRow = {
  name: string
  target: 'service' | 'baseline' | 'embedded'
  requests: number
  rps: number
  p50: number
  p99: number
  errors: number
  peakRssMb: number | null
  /** CPU per request (µs) of the server measured and of PostgreSQL, where measured. */
  cpu?: { server: number; postgres: number }
  /** The collector's time over the service's CPU time in the row (bench/gc-time.ts), where measured. */
  gcShare?: number
  /** The archive size measured, in a report of several sizes. */
  articles?: number
}

/** What one archive size measured. */
export type SizeSummary = {
  articles: number
  rows: BenchRow[]
  bulk: { requests: number; p50: number; p99: number; eventsPerRequest: number }
  fanOut: { subscriptions: number; runs: number; p50Ms: number; maxMs: number; allMs: number[]; deliveriesPerRun: number }
  soak: { rps: number; p99: number; errors: number; rssStartMb: number; rssEndMb: number; peakRssMb: number }
  authOverhead: { microsecondsPerRequest: number; iterations: number; store: string }
  requestLogCost?: RequestLogCost
  editorAwareness?: EditorAwarenessCost
  editorAwarenessHttp?: EditorAwarenessHttp
}

/**
 * A run's results. With several sizes (BENCH_SIZES), `articles` and the figures beside `rows`
 * are the largest size's, `rows` holds every size's rows (each with its `articles`), and
 * `bySize` every size's other figures, smallest first.
 */
export type Summary = SizeSummary & {
  machine: { cores: number; node: string }
  connections: number
  seconds: number
  sizes?: number[]
  bySize?: Omit<SizeSummary, 'rows'>[]
  /** The same service on its embedded default (PGlite), on a smaller data set of its own. */
  embedded?: { articles: number; rows: BenchRow[] }
}

/** What bench/editor-awareness-cost.ts prints: open editors' polls and lease renewals. */
export type EditorAwarenessCost = {
  editors: number
  requests_per_second: number
  watch_unchanged: { cpuUs: number; wallUs: number }
  watch_changed: { cpuUs: number; wallUs: number }
  lease_renewal: { cpuUs: number; wallUs: number }
  service_cpu_ms_per_second: number
  service_cpu_per_watcher_us_per_second: number
}

const round = (value: number) => Math.round(value * 10) / 10

/**
 * The endpoints' table: throughput as a ratio to the framework-free baseline. With several
 * sizes, a column per size for each endpoint and how the largest compares with the smallest.
 */
export function formatRows(rows: BenchRow[], sizes?: number[]): string {
  if (sizes && sizes.length > 1) return formatSizeColumns(rows, sizes)
  const baseline = new Map(rows.filter((row) => row.target === 'baseline').map((row) => [row.name, row.rps]))
  return [
    '| endpoint | server | req/s | p50 ms | p99 ms | errors | peak RSS MB | × baseline | CPU µs/req: server / PostgreSQL | collector % of server CPU |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => {
      const ratio = row.target === 'service' && baseline.has(row.name) ? (row.rps / baseline.get(row.name)!).toFixed(2) : ''
      const cpu = row.cpu ? `${row.cpu.server} / ${row.cpu.postgres}` : ''
      return `| ${row.name} | ${row.target} | ${round(row.rps)} | ${row.p50} | ${row.p99} | ${row.errors} | ${row.peakRssMb ?? ''} | ${ratio} | ${cpu} | ${collectorPercent(row)} |`
    }),
  ].join('\n')
}

const collectorPercent = (row: BenchRow) => (row.gcShare === undefined ? '' : (row.gcShare * 100).toFixed(1))

const sizeName = (articles: number) => (articles % 1_000_000 === 0 ? `${articles / 1_000_000}M` : articles % 1_000 === 0 ? `${articles / 1_000}k` : String(articles))

function formatSizeColumns(rows: BenchRow[], sizes: number[]): string {
  // A row named for its size (the events rows: "1,000,000 events") is the same row at every size.
  const key = (row: BenchRow) => `${row.target}\u0000${row.name.replace(/\d{1,3}(,\d{3})+/g, 'N')}`
  const endpoints = [...new Map(rows.map((row) => [key(row), row])).values()]
  const find = (endpoint: BenchRow, articles: number) => rows.find((row) => key(row) === key(endpoint) && row.articles === articles)
  const baseline = (name: string, articles: number) => rows.find((row) => row.target === 'baseline' && row.name === name && row.articles === articles)?.rps
  const cell = (row: BenchRow | undefined) => {
    if (!row) return '–'
    const base = row.target === 'service' ? baseline(row.name, row.articles!) : undefined
    const cpu = row.cpu ? `, CPU ${row.cpu.server} / ${row.cpu.postgres}` : ''
    const collector = row.gcShare === undefined ? '' : `, GC ${collectorPercent(row)} %`
    const errors = row.errors ? `, ${row.errors} errors` : ''
    return `${round(row.rps)} req/s${base ? ` (${(row.rps / base).toFixed(2)}× base)` : ''}, p50 ${row.p50}, p99 ${row.p99}${cpu}${collector}${errors}`
  }
  const [smallest, largest] = [sizes[0]!, sizes.at(-1)!]
  const growth = (endpoint: BenchRow) => {
    const [small, large] = [find(endpoint, smallest), find(endpoint, largest)]
    if (!small || !large || small.rps === 0) return ''
    const cpu = small.cpu && large.cpu && small.cpu.server + small.cpu.postgres > 0 ? `, CPU/req ×${((large.cpu.server + large.cpu.postgres) / (small.cpu.server + small.cpu.postgres)).toFixed(2)}` : ''
    return `req/s ×${(large.rps / small.rps).toFixed(2)}, p99 ×${small.p99 > 0 ? (large.p99 / small.p99).toFixed(2) : '–'}${cpu}`
  }
  return [
    `Each cell: req/s (× the baseline at that size), p50 and p99 ms, CPU µs per request: server / PostgreSQL, and (GC) the collector's time as a share of the service's CPU in that row. Growth: ${sizeName(largest)} against ${sizeName(smallest)}.`,
    '',
    `| endpoint | server | ${sizes.map((size) => `${size.toLocaleString('en')} articles`).join(' | ')} | growth |`,
    `|---|---|${sizes.map(() => '---').join('|')}|---|`,
    ...endpoints.map((endpoint) => `| ${endpoint.name} | ${endpoint.target} | ${sizes.map((size) => cell(find(endpoint, size))).join(' | ')} | ${growth(endpoint)} |`),
  ].join('\n')
}

/** The figures besides the endpoints' table, for one size. */
function sizeFigures(summary: Omit<SizeSummary, 'rows'>, seconds: number): string[] {
  return [
    `Bulk import of 500 articles (${summary.bulk.requests} requests, one at a time): p50 ${round(summary.bulk.p50)} ms, p99 ${round(summary.bulk.p99)} ms, ${summary.bulk.eventsPerRequest} outbox events per request.`,
    '',
    `Fan-out of one event to ${summary.fanOut.subscriptions} subscriptions through /api/inngest (${summary.fanOut.runs} runs): all ${summary.fanOut.deliveriesPerRun} delivery events enqueued in p50 ${round(summary.fanOut.p50Ms)} ms, max ${round(summary.fanOut.maxMs)} ms (each run, sorted: ${summary.fanOut.allMs.join(', ')} ms).`,
    '',
    `Memory over a ${seconds > 0 ? 'soak' : ''} run of GET /v1/articles: RSS ${summary.soak.rssStartMb} MB at the start, ${summary.soak.rssEndMb} MB at the end, peak ${summary.soak.peakRssMb} MB; ${round(summary.soak.rps)} req/s, p99 ${summary.soak.p99} ms, ${summary.soak.errors} errors.`,
    '',
    `Authentication + scope + rate limit (${summary.authOverhead.store} store, cached token): ${summary.authOverhead.microsecondsPerRequest} µs per request over ${summary.authOverhead.iterations.toLocaleString('en')} iterations.`,
    ...(summary.requestLogCost ? ['', formatRequestLogCost(summary.requestLogCost)] : []),
    ...(summary.editorAwarenessHttp ? ['', formatEditorAwarenessHttp(summary.editorAwarenessHttp)] : []),
    ...(summary.editorAwareness ? ['', formatEditorAwareness(summary.editorAwareness)] : []),
  ]
}

/** The results as a Markdown report. */
export function formatReport(summary: Summary): string {
  if (summary.sizes && summary.sizes.length > 1 && summary.bySize) {
    return [
      `# Benchmark: ${summary.sizes.map((size) => size.toLocaleString('en')).join(' and ')} articles, ${summary.connections} connections, ${summary.seconds} s per endpoint`,
      '',
      `Machine: ${summary.machine.cores} cores, Node ${summary.machine.node}. Each size has its own database (+10% in a second newsroom) and a fresh service and baseline, one size after the other in one run; compare ratios within one run.`,
      '',
      formatRows(summary.rows, summary.sizes),
      ...embeddedTable({ ...summary, rows: summary.rows.filter((row) => row.articles === summary.sizes!.at(-1)) }),
      ...summary.bySize.flatMap((size, index) => [
        '',
        `## Other figures at ${size.articles.toLocaleString('en')} articles`,
        '',
        ...sizeFigures(size, summary.seconds),
        ...(index > 0 && !size.requestLogCost ? ['', `The request log's and the open editors' costs were measured at ${summary.bySize![0]!.articles.toLocaleString('en')} articles only: they do not depend on the archive's size.`] : []),
      ]),
    ].join('\n')
  }
  const lines = [
    `# Benchmark: ${summary.articles.toLocaleString('en')} articles, ${summary.connections} connections, ${summary.seconds} s per endpoint`,
    '',
    `Machine: ${summary.machine.cores} cores, Node ${summary.machine.node}. Compare ratios within one run; absolute numbers move with the machine's load.`,
    '',
    formatRows(summary.rows),
    ...embeddedTable(summary),
    '',
    ...sizeFigures(summary, summary.seconds),
  ]
  return lines.join('\n')
}

/** The middle value (the upper of the two middle ones for an even count). */
function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
}

/** The request log's cost: get-by-id with recording on against off, each turn's figures, the total and where the CPU went. */
export function formatRequestLogCost({ on, off, cpu, wal, servicePerEntryUs }: RequestLogCost): string {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
  const figures = (values: number[]) => values.map((value) => Math.round(value).toLocaleString('en')).join(', ')
  // Each pair's own difference, so that how much pairs differ is said with the figure: two
  // servers with recording off differ by as much as 5-10% in a pair (an A/A run of this bench).
  const pairCosts = on.map((rps, pair) => 1 - rps / off[pair]!)
  const meanCost = sum(pairCosts) / pairCosts.length
  const spread = Math.sqrt(sum(pairCosts.map((cost) => (cost - meanCost) ** 2)) / Math.max(1, pairCosts.length - 1))
  const twoStandardErrors = (2 * spread) / Math.sqrt(pairCosts.length)
  const share = (name: string, key: Exclude<keyof CpuShares, 'machine'>) => `${name} ${median(cpu.on.map((turn) => turn[key] ?? 0))} / ${median(cpu.off.map((turn) => turn[key] ?? 0))}`
  // Every process that serves or drives a request shares the machine's cores, so the CPU they
  // spend per request together is what the machine's throughput divides.
  const machine = (turns: CpuShares[]) => median(turns.map((turn) => turn.server + turn.postgres + turn.redis + (turn.loadGenerator ?? 0)))
  const cpuCost = 1 - machine(cpu.off) / machine(cpu.on)
  // By its parts: what recording adds to the service's process (in-process, no second process to
  // differ from) and to PostgreSQL (which does nothing else for a cached read). While the machine
  // has idle time the service's one thread limits a cached read, and only the service's part
  // counts, over the service's CPU per request; once every core is busy, both parts count, over
  // the machine's. The larger of the two is reported.
  const service = median(servicePerEntryUs)
  const postgres = median(cpu.on.map((turn) => turn.postgres)) - median(cpu.off.map((turn) => turn.postgres))
  const serverOff = median(cpu.off.map((turn) => turn.server))
  const byParts = Math.max(service / serverOff, (service + postgres) / machine(cpu.off))
  return (
    `Request log (GET /v1/articles/{id}, cache warm, ${on.length} fresh pairs of servers): recording on ${figures(on)} req/s, off ${figures(off)} req/s; ` +
    `recording costs ${(meanCost * 100).toFixed(1)}% ± ${(twoStandardErrors * 100).toFixed(1)}% of the throughput (mean of the pairs' differences, ± two standard errors). ` +
    `CPU per request, median of turns, on / off (µs): ${share('service', 'server')}, ${share('PostgreSQL', 'postgres')}, ${share('Redis', 'redis')}, ${share('load generator', 'loadGenerator')}; ` +
    `all of them ${machine(cpu.on)} / ${machine(cpu.off)}: recording costs ${(cpuCost * 100).toFixed(1)}% of the machine's CPU per request. ` +
    `By its parts: ${service} µs per entry in the service's process (in-process, rounds: ${servicePerEntryUs.join(', ')}) and ${postgres} µs in PostgreSQL, ` +
    `${(byParts * 100).toFixed(1)}% (the larger of the service's part over its own ${serverOff} µs per request and both parts over the machine's ${machine(cpu.off)}; target ≤ 5%).` +
    machineTimes(cpu) +
    walWork(wal)
  )
}

/**
 * The machine's own accounts per request, on / off: where a difference the processes' CPU does
 * not show went (kernel work such as a WAL fsync's, waiting on the disk, the host's steal).
 */
function machineTimes(cpu: RequestLogCost['cpu']): string {
  const times = (turns: CpuShares[]) => turns.map((turn) => turn.machine).filter((times): times is MachineTimes => times !== undefined)
  const [on, off] = [times(cpu.on), times(cpu.off)]
  if (on.length === 0 || off.length === 0) return ''
  const field = (key: keyof MachineTimes) => `${key} ${median(on.map((turn) => turn[key]))} / ${median(off.map((turn) => turn[key]))}`
  return ` The machine's own accounts per request, on / off (µs, /proc/stat): ${(['busy', 'kernel', 'iowait', 'idle', 'steal'] as const).map(field).join(', ')}.`
}

/** The WAL PostgreSQL wrote per request, on / off: the disk's share, which no process's CPU shows. */
function walWork(wal: RequestLogCost['wal']): string {
  if (!wal || wal.on.length === 0 || wal.off.length === 0) return ''
  const field = (key: keyof WalWork, name: string) => `${name} ${median(wal.on.map((turn) => turn[key]))} / ${median(wal.off.map((turn) => turn[key]))}`
  return ` PostgreSQL's WAL, on / off: ${field('syncsPerThousandRequests', 'flushes to disk per 1,000 requests')} (pg_stat_wal), ${field('bytesPerRequest', 'bytes per request')} (insert position).`
}

/** The embedded store beside the PostgreSQL service, endpoint by endpoint. */
function embeddedTable(summary: Summary): string[] {
  if (!summary.embedded) return []
  const postgres = new Map(summary.rows.filter((row) => row.target === 'service').map((row) => [row.name, row.rps]))
  return [
    '',
    `Embedded store (PGlite behind its socket server, as \`npm run dev\` runs it; ${summary.embedded.articles.toLocaleString('en')} articles, no Redis), beside the PostgreSQL service above:`,
    '',
    '| endpoint | req/s | p50 ms | p99 ms | errors | × PostgreSQL service |',
    '|---|---:|---:|---:|---:|---:|',
    ...summary.embedded.rows.map((row) => {
      const ratio = postgres.has(row.name) ? (row.rps / postgres.get(row.name)!).toFixed(2) : ''
      return `| ${row.name} | ${round(row.rps)} | ${row.p50} | ${row.p99} | ${row.errors} | ${ratio} |`
    }),
  ]
}

/** The mean of pairs' relative differences (1 - a/b) and two standard errors of it. */
function pairedCost(a: number[], b: number[]): { mean: number; twoStandardErrors: number } {
  const costs = a.map((value, pair) => 1 - value / b[pair]!)
  const mean = costs.reduce((total, cost) => total + cost, 0) / costs.length
  const spread = Math.sqrt(costs.reduce((total, cost) => total + (cost - mean) ** 2, 0) / Math.max(1, costs.length - 1))
  return { mean, twoStandardErrors: (2 * spread) / Math.sqrt(costs.length) }
}

/** Open editors through HTTP (bench/editor-awareness-http.ts): get-by-id beside them, and their own cost. */
export function formatEditorAwarenessHttp(cost: EditorAwarenessHttp): string {
  const { rounds, editors } = cost
  const figures = (values: number[]) => values.map((value) => Math.round(value).toLocaleString('en')).join(', ')
  const withEditors = rounds.map((round) => round.with)
  const without = rounds.map((round) => round.without)
  const moved = pairedCost(withEditors, without)
  const share = (name: string, key: Exclude<keyof CpuShares, 'machine'>) =>
    `${name} ${median(rounds.map((round) => round.cpu.with[key] ?? 0))} / ${median(rounds.map((round) => round.cpu.without[key] ?? 0))}`
  const requestsPerSecond = rounds.map((round) => (round.editors.watches + round.editors.renewals) / round.editors.steadySeconds)
  const watchesPerSecond = median(rounds.map((round) => round.editors.watches / round.editors.steadySeconds))
  const renewalsPerSecond = median(rounds.map((round) => round.editors.renewals / round.editors.steadySeconds))
  // What the editors add: each round's CPU with the editors alone less the same server's with nobody at all.
  const added = (key: keyof EditorAwarenessHttp['rounds'][number]['idle']) => round(median(rounds.map((each) => each.idle[key] - (each.quiet?.[key] ?? 0))))
  const serverMs = added('serverMsPerSecond')
  const postgresMs = added('postgresMsPerSecond')
  const redisMs = added('redisMsPerSecond')
  const quietServerMs = median(rounds.map((each) => each.quiet?.serverMsPerSecond ?? 0))
  const perWatcher = (ms: number) => Math.round((ms * 1000) / editors)
  const watches = rounds.reduce((total, round) => total + round.editors.watches, 0)
  const unchanged = rounds.reduce((total, round) => total + round.editors.unchanged, 0)
  const errors = rounds.reduce((total, round) => total + round.editors.errors + round.editors.lost, 0)
  const rps = median(requestsPerSecond)
  return (
    `Open editors through HTTP (${editors} signed-in portal sessions, each with its own draft open and unsaved edits, as the article page polls and renews: ` +
    `GET /api/articles/{id}/watch with the ETag last seen and Prefer: wait=25, held by the server until the article changes or 25 s pass and asked again at once, POST /api/articles/{id}/lease every 30 s; ${rounds.length} fresh servers, turns ${cost.turnSeconds} s, order alternating): ` +
    `${round(rps)} requests/s (${round(watchesPerSecond)} polls, ${round(renewalsPerSecond)} renewals; ${((unchanged / Math.max(1, watches)) * 100).toFixed(1)}% of polls answered "unchanged"; ${errors} errors or lost leases). ` +
    `Editors alone, median of rounds, less what each server spent with nobody at all (service ${quietServerMs} ms/s): service ${serverMs} ms of CPU per second, ${perWatcher(serverMs)} µs per second per watcher (${Math.round((serverMs * 1000) / Math.max(1, rps))} µs per request); ` +
    `PostgreSQL ${postgresMs} ms/s (${perWatcher(postgresMs)} µs/s per watcher), Redis ${redisMs} ms/s (${perWatcher(redisMs)} µs/s per watcher). ` +
    `GET /v1/articles/{id} (cache warm) with the editors open ${figures(withEditors)} req/s, without ${figures(without)} req/s: ` +
    `the editors cost ${(moved.mean * 100).toFixed(1)}% ± ${(moved.twoStandardErrors * 100).toFixed(1)}% of its throughput (mean of the rounds' differences, ± two standard errors; target < 5%). ` +
    `CPU per get-by-id request, median of turns, with / without (µs; the editors' own work counts in the first): ${share('service', 'server')}, ${share('PostgreSQL', 'postgres')}, ${share('Redis', 'redis')}, ${share('load generator', 'loadGenerator')}. ` +
    `Poll latency while get-by-id ran beside: p50 ${median(rounds.map((round) => round.editors.watchP50Ms))} ms, p99 ${median(rounds.map((round) => round.editors.watchP99Ms))} ms.`
  )
}

/** Open editors' cost: what the portal's live pages ask of the service. */
export function formatEditorAwareness(cost: EditorAwarenessCost): string {
  return (
    `Open editors in-process (${cost.editors}, all with unsaved edits): ${cost.requests_per_second} requests/s (a poll every 3 s, a lease renewal every 30 s). ` +
    `Service CPU in-process: ${cost.watch_unchanged.cpuUs} µs per unchanged poll (one read of the article and its lease), ${cost.watch_changed.cpuUs} µs per changed one, ${cost.lease_renewal.cpuUs} µs per renewal; ` +
    `${cost.service_cpu_ms_per_second} ms of CPU per second in all, ${cost.service_cpu_per_watcher_us_per_second} µs per second per editor (before tRPC and HTTP).`
  )
}
