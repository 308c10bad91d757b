import { spawn, type ChildProcess } from 'node:child_process'
import pg from 'pg'
import { startCommand } from '../scripts/start-command.ts'
import { runJsonScript } from './json-script.ts'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot, type CpuShares } from './process-cpu.ts'

/** What PostgreSQL wrote to its WAL during a turn (pg_stat_wal, the whole cluster): disk work no process's CPU shows. */
export type WalWork = { syncsPerThousandRequests: number; bytesPerRequest: number }

export type RequestLogCost = {
  on: number[]
  off: number[]
  cpu: { on: CpuShares[]; off: CpuShares[] }
  wal?: { on: WalWork[]; off: WalWork[] }
  /** The service's CPU per recorded entry, in-process (bench/request-log-entry-cost.ts), each round. */
  servicePerEntryUs: number[]
}

// A fresh pair of servers per round, each state first as often as second: one pair measured the
// two processes' own differences (JIT decisions, memory layout; -5% to +19% between runs of one
// tree) as much as the log, and a state always measured first or second would inherit the
// other's leftovers (a log write, Redis's work) or the machine's drift.
const rounds = 10
const turnSeconds = 5
const walSettleMs = 2_000

/**
 * What recording every request in the request log costs (issue 14: at most 5% of get-by-id):
 * `path` on fresh servers started alike but one with REQUEST_LOG=off, both warmed on it. Each
 * turn also reads the CPU the server, PostgreSQL, Redis and the load generator spent per request,
 * which says where the cost lands whatever the machine's speed at the time; the service's own
 * share is also measured in-process, where no second process's differences drown it.
 */
export async function measureRequestLogCost(options: { serviceEnv: NodeJS.ProcessEnv; port: number; token: string; path: string; children: ChildProcess[] }): Promise<RequestLogCost> {
  const cost: RequestLogCost = { on: [], off: [], cpu: { on: [], off: [] }, wal: { on: [], off: [] }, servicePerEntryUs: [] }
  const request = { token: options.token, method: 'GET', path: options.path }
  const stats = new pg.Client({ connectionString: options.serviceEnv.DATABASE_URL })
  await stats.connect()
  // Bytes from the WAL's insert position (exact, at once); flushes to disk from pg_stat_wal
  // (PostgreSQL 14 to 17), whose counts reach it up to a second late. Null where either is missing.
  const walNow = async (): Promise<{ syncs: number; bytes: number } | null> => {
    try {
      const { rows } = await stats.query<{ syncs: string; bytes: string }>(`SELECT (pg_current_wal_insert_lsn() - '0/0')::text AS bytes, (SELECT wal_sync FROM pg_stat_wal)::text AS syncs`)
      return { syncs: Number(rows[0]!.syncs), bytes: Number(rows[0]!.bytes) }
    } catch {
      return null
    }
  }
  try {
    for (let round = 0; round < rounds; round++) {
      const servers = (['on', 'off'] as const).map((recording, index) => {
        const port = options.port + index
        const child = spawn(...startCommand(), { stdio: ['ignore', 'ignore', 'inherit'], env: { ...options.serviceEnv, PORT: String(port), REQUEST_LOG: recording } })
        options.children.push(child)
        return { recording, url: `http://127.0.0.1:${port}`, process: child, exited: new Promise((resolve) => child.once('exit', resolve)) }
      })
      try {
        for (const server of servers) await waitFor(`${server.url}/v1/openapi.json`)
        for (const server of servers) await load({ url: server.url, ...request, duration: 3 })
        for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
          const walBefore = await walNow()
          const before = cpuSnapshot(server.process.pid!)
          const result = await load({ url: server.url, ...request, duration: turnSeconds })
          const after = cpuSnapshot(server.process.pid!)
          cost[server.recording].push(result.rps)
          cost.cpu[server.recording].push({ ...cpuPerRequest(before, after, result.requests), loadGenerator: Math.round((result.cpuMs * 1000) / Math.max(1, result.requests)) })
          // The turn's last entries are written within a second of its end, and counted with it.
          await new Promise((resolve) => setTimeout(resolve, walSettleMs))
          const walAfter = await walNow()
          if (walBefore && walAfter) {
            cost.wal![server.recording].push({
              syncsPerThousandRequests: Math.round(((walAfter.syncs - walBefore.syncs) * 1_000_000) / Math.max(1, result.requests)) / 1_000,
              bytesPerRequest: Math.round((walAfter.bytes - walBefore.bytes) / Math.max(1, result.requests)),
            })
          }
        }
      } finally {
        for (const server of servers) server.process.kill('SIGTERM')
        await Promise.all(servers.map((server) => server.exited))
      }
    }
  } finally {
    await stats.end()
  }
  cost.servicePerEntryUs = await runJsonScript<number[]>('bench/request-log-entry-cost.ts', { env: { ...options.serviceEnv, NODE_ENV: 'production' } })
  return cost
}

