/**
 * The newsroom archive at size: `tsx bench/newsroom-archive.ts [articles]` (default 100,000).
 * Seeds a newsroom (bench/seed-bench-data.ts: articles of ~3.5 KB with their first revisions,
 * as many events) into a new database, exports it with `npm run newsroom -- export` (its own
 * process, peak RSS from /usr/bin/time), imports the file into a second new database, and
 * compares the two newsrooms row by row (an md5 over every archived table's rows in id order).
 * Beside wall time and peak RSS it reports CPU seconds (the CLI's, from /usr/bin/time, and its
 * PostgreSQL backends', sampled from /proc while the server is local) and the load average
 * during each step: on a shared machine the CPU figures are the comparable ones.
 * Prints a Markdown table for bench/results/. Databases on BENCH_DATABASE_URL's server (default:
 * the local PostgreSQL), dropped at the end.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { runPrisma } from '../scripts/run-prisma.ts'

const root = path.resolve(import.meta.dirname, '..')
const articles = Number(process.argv[2] ?? 100_000)
const server = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres'
const run = randomBytes(4).toString('hex')
const names = [`newsroom_archive_from_${run}`, `newsroom_archive_to_${run}`]
const urlOf = (name: string) => Object.assign(new URL(server), { pathname: `/${name}` }).toString()
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-archive-bench-'))

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  await client.query(sql).finally(() => client.end())
}

type Step = { seconds: number; peakRssMb: number; cliCpu: number; postgresCpu: number; load: { min: number; max: number } }

/** CPU seconds of a process so far (utime + stime), or null once it has gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

/**
 * While `work` runs: every second, the CPU time of each PostgreSQL backend serving `database`
 * (their pids from pg_stat_activity; readable in /proc when the server runs on this machine),
 * and the 1-minute load average.
 */
async function watched<T>(database: string, work: () => Promise<T>): Promise<{ result: T; postgresCpu: number; load: { min: number; max: number } }> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  const cpu = new Map<number, number>()
  const loads: number[] = []
  const sample = async () => {
    loads.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]))
    const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database])
    for (const { pid } of rows) {
      const seconds = cpuSeconds(pid)
      if (seconds !== null) cpu.set(pid, Math.max(cpu.get(pid) ?? 0, seconds))
    }
  }
  const timer = setInterval(() => void sample().catch(() => undefined), 1000)
  try {
    const result = await work()
    return { result, postgresCpu: [...cpu.values()].reduce((sum, n) => sum + n, 0), load: { min: Math.min(...loads), max: Math.max(...loads) } }
  } finally {
    clearInterval(timer)
    await client.end()
  }
}

/** The CLI in its own process under /usr/bin/time, watched: seconds, peak RSS (MB), CPU seconds, load. */
async function timedCli(args: string[], database: string, stdoutFile?: string): Promise<Step> {
  const { result, postgresCpu, load } = await watched(database, () => runCli(args, { DATABASE_URL: urlOf(database) }, stdoutFile))
  return { ...result, postgresCpu, load }
}

function runCli(args: string[], env: Record<string, string>, stdoutFile?: string): Promise<{ seconds: number; peakRssMb: number; cliCpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M CPU_S=%U+%S', process.execPath, '--import', 'tsx', path.join(root, 'scripts/newsroom.ts'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    if (stdoutFile) child.stdout.pipe(createWriteStream(stdoutFile))
    else child.stdout.resume()
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`newsroom ${args[0]} exited ${code}: ${stderr}`))
      const kb = Number(/PEAK_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0)
      const cpu = /CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr)
      resolve({ seconds: (performance.now() - started) / 1000, peakRssMb: kb / 1024, cliCpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : 0 })
    })
  })
}

async function digest(url: string, tenantId: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const out: Record<string, string> = {}
    for (const table of ['tenants', 'users', 'departments', 'media', 'articles', 'article_revisions', 'article_transitions', 'article_notes', 'webhook_subscriptions', 'events']) {
      const column = table === 'tenants' ? 'id' : 'tenant_id'
      // What the import changes on purpose left out: passwords, secrets, derived columns, the send mark.
      const { rows } = await client.query<{ n: string; md5: string }>(
        `SELECT count(*)::text AS n, md5(string_agg((to_jsonb(t) - 'password_hash' - 'secret_encrypted' - 'change_xid' - 'sent_to_queue_at' - ${table === 'webhook_subscriptions' ? "'status'" : "'-'"})::text, '' ORDER BY id)) AS md5 FROM ${table} t WHERE ${column} = $1`,
        [tenantId],
      )
      out[table] = `${rows[0]!.n}:${rows[0]!.md5}`
    }
    return out
  } finally {
    await client.end()
  }
}

try {
  for (const name of names) await admin(`CREATE DATABASE ${name}`)
  for (const name of names) await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: urlOf(name) })
  // The seed mints a token through lib/, whose client reads DATABASE_URL when it loads.
  process.env.DATABASE_URL = urlOf(names[0]!)
  const { seedBenchData } = await import('./seed-bench-data.ts')
  const seedStart = performance.now()
  const [tenant] = await seedBenchData(urlOf(names[0]!), [{ name: `archive-${run}`, plan: 'standard', articles, events: articles }])
  console.error(`seeded ${articles} articles in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`)
  const file = path.join(dir, 'newsroom.ndjson')
  const exported = await timedCli(['export', '--tenant', tenant!.slug], names[0]!, file)
  const bytes = statSync(file).size
  const lines = Number(execFileSync('wc', ['-l', file], { encoding: 'utf8' }).trim().split(' ')[0])
  console.error(`exported ${articles} articles: ${lines} lines, ${(bytes / 1024 / 1024).toFixed(0)} MB in ${exported.seconds.toFixed(1)} s, peak RSS ${exported.peakRssMb.toFixed(0)} MB`)
  console.error(`export: CLI ${exported.cliCpu.toFixed(1)} CPU s, PostgreSQL ${exported.postgresCpu.toFixed(1)} CPU s, load ${exported.load.min}-${exported.load.max}`)
  const imported = await timedCli(['import', '--file', file], names[1]!)
  console.error(`imported in ${imported.seconds.toFixed(1)} s, peak RSS ${imported.peakRssMb.toFixed(0)} MB, CLI ${imported.cliCpu.toFixed(1)} CPU s, PostgreSQL ${imported.postgresCpu.toFixed(1)} CPU s, load ${imported.load.min}-${imported.load.max}`)
  const [before, after] = [await digest(urlOf(names[0]!), tenant!.id), await digest(urlOf(names[1]!), tenant!.id)]
  const same = JSON.stringify(before) === JSON.stringify(after)
  const mb = bytes / 1024 / 1024
  const row = (name: string, step: Step) =>
    `| ${name} | ${step.seconds.toFixed(1)} s | ${Math.round(articles / step.seconds).toLocaleString('en-US')} articles/s, ${(mb / step.seconds).toFixed(1)} MB/s | ${step.peakRssMb.toFixed(0)} MB | ${step.cliCpu.toFixed(1)} s | ${step.postgresCpu.toFixed(1)} s | ${step.load.min}-${step.load.max} |`
  console.log(`| step | time | rate | peak RSS | CLI CPU | PostgreSQL CPU | load (1 min) |
|---|---:|---:|---:|---:|---:|---:|
${row(`export (${lines.toLocaleString('en-US')} lines, ${mb.toFixed(0)} MB)`, exported)}
${row('import (one transaction)', imported)}

Both newsrooms compared row by row (count and md5 of every archived table): ${same ? 'identical' : 'DIFFERENT'}.
${JSON.stringify(before)}`)
  if (!same) {
    console.log(JSON.stringify(after))
    process.exitCode = 1
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
  for (const name of names) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined)
}
