/**
 * The newsroom archive at size: `tsx bench/newsroom-archive.ts [articles]` (default 100,000).
 * Seeds a newsroom (bench/seed-bench-data.ts: articles of ~3.5 KB with their first revisions,
 * as many events) into a new database, exports it with `npm run newsroom -- export` (its own
 * process, peak RSS from /usr/bin/time), imports the file into a second new database, and
 * compares the two newsrooms row by row (an md5 over every archived table's rows in id order).
 * Prints a Markdown table for bench/results/. Databases on BENCH_DATABASE_URL's server (default:
 * the local PostgreSQL), dropped at the end.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
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

/** The CLI in its own process under /usr/bin/time: seconds and peak RSS (MB). */
function timedCli(args: string[], env: Record<string, string>, stdoutFile?: string): Promise<{ seconds: number; peakRssMb: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M', process.execPath, '--import', 'tsx', path.join(root, 'scripts/newsroom.ts'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    if (stdoutFile) child.stdout.pipe(createWriteStream(stdoutFile))
    else child.stdout.resume()
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`newsroom ${args[0]} exited ${code}: ${stderr}`))
      const kb = Number(/PEAK_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0)
      resolve({ seconds: (performance.now() - started) / 1000, peakRssMb: kb / 1024 })
    })
  })
}

async function digest(url: string, tenantId: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const out: Record<string, string> = {}
    for (const table of ['tenants', 'users', 'departments', 'articles', 'article_revisions', 'article_transitions', 'article_notes', 'webhook_subscriptions', 'events']) {
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
  const exported = await timedCli(['export', '--tenant', tenant!.slug], { DATABASE_URL: urlOf(names[0]!) }, file)
  const bytes = statSync(file).size
  const lines = Number(execFileSync('wc', ['-l', file], { encoding: 'utf8' }).trim().split(' ')[0])
  console.error(`exported ${articles} articles: ${lines} lines, ${(bytes / 1024 / 1024).toFixed(0)} MB in ${exported.seconds.toFixed(1)} s, peak RSS ${exported.peakRssMb.toFixed(0)} MB`)
  const imported = await timedCli(['import', '--file', file], { DATABASE_URL: urlOf(names[1]!) })
  const [before, after] = [await digest(urlOf(names[0]!), tenant!.id), await digest(urlOf(names[1]!), tenant!.id)]
  const same = JSON.stringify(before) === JSON.stringify(after)
  const mb = bytes / 1024 / 1024
  console.log(`| step | time | rate | peak RSS |
|---|---:|---:|---:|
| export (${lines.toLocaleString('en-US')} lines, ${mb.toFixed(0)} MB) | ${exported.seconds.toFixed(1)} s | ${Math.round(articles / exported.seconds).toLocaleString('en-US')} articles/s, ${(mb / exported.seconds).toFixed(1)} MB/s | ${exported.peakRssMb.toFixed(0)} MB |
| import (one transaction) | ${imported.seconds.toFixed(1)} s | ${Math.round(articles / imported.seconds).toLocaleString('en-US')} articles/s, ${(mb / imported.seconds).toFixed(1)} MB/s | ${imported.peakRssMb.toFixed(0)} MB |

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
