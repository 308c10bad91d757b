import { spawn, type ChildProcess } from 'node:child_process'
import { startCommand } from '../scripts/start-command.ts'
import { runJsonScript } from './json-script.ts'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot, type CpuShares } from './process-cpu.ts'

export type RequestLogCost = {
  on: number[]
  off: number[]
  cpu: { on: CpuShares[]; off: CpuShares[] }
  /** The service's CPU per recorded entry, in-process (bench/request-log-entry-cost.ts), each round. */
  servicePerEntryUs: number[]
}

// A fresh pair of servers per round, each state first as often as second: one pair measured the
// two processes' own differences (JIT decisions, memory layout; -5% to +19% between runs of one
// tree) as much as the log, and a state always measured first or second would inherit the
// other's leftovers (a log write, Redis's work) or the machine's drift.
const rounds = 6
const turnSeconds = 5

/**
 * What recording every request in the request log costs (issue 14: at most 5% of get-by-id):
 * `path` on fresh servers started alike but one with REQUEST_LOG=off, both warmed on it. Each
 * turn also reads the CPU the server, PostgreSQL, Redis and the load generator spent per request,
 * which says where the cost lands whatever the machine's speed at the time; the service's own
 * share is also measured in-process, where no second process's differences drown it.
 */
export async function measureRequestLogCost(options: { serviceEnv: NodeJS.ProcessEnv; port: number; token: string; path: string; children: ChildProcess[] }): Promise<RequestLogCost> {
  const cost: RequestLogCost = { on: [], off: [], cpu: { on: [], off: [] }, servicePerEntryUs: [] }
  const request = { token: options.token, method: 'GET', path: options.path }
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
        const before = cpuSnapshot(server.process.pid!)
        const result = await load({ url: server.url, ...request, duration: turnSeconds })
        cost[server.recording].push(result.rps)
        const perRequest = cpuPerRequest(before, cpuSnapshot(server.process.pid!), result.requests)
        cost.cpu[server.recording].push({ ...perRequest, loadGenerator: Math.round((result.cpuMs * 1000) / Math.max(1, result.requests)) })
      }
    } finally {
      for (const server of servers) server.process.kill('SIGTERM')
      await Promise.all(servers.map((server) => server.exited))
    }
  }
  cost.servicePerEntryUs = await runJsonScript<number[]>('bench/request-log-entry-cost.ts', { env: { ...options.serviceEnv, NODE_ENV: 'production' } })
  return cost
}

