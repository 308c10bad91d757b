import { spawn, type ChildProcess } from 'node:child_process'
import { startCommand } from '../scripts/start-command.ts'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot, type CpuShares } from './process-cpu.ts'

export type RequestLogCost = { on: number[]; off: number[]; cpu: { on: CpuShares[]; off: CpuShares[] } }

// Each recording state goes first as often as second (ABBA BAAB), so that neither always
// inherits the other's leftovers (a log flush, an autovacuum of the log, Redis's work) or the
// machine's drift.
const turns = ['on', 'off', 'off', 'on', 'off', 'on', 'on', 'off'] as const
const turnSeconds = 5

/**
 * What recording every request in the request log costs (issue 14: at most 5% of get-by-id):
 * `path` on two fresh servers started alike but one with REQUEST_LOG=off, both warmed on it,
 * then measured in turns. Comparing with the bench's long-running service instead measured the
 * two processes' histories as much as the log (runs of one tree gave -2% to 34%). Each turn
 * also reads the CPU the server, PostgreSQL, Redis and the load generator spent per request,
 * which says where the cost lands whatever the machine's speed at the time.
 */
export async function measureRequestLogCost(options: { serviceEnv: NodeJS.ProcessEnv; port: number; token: string; path: string; children: ChildProcess[] }): Promise<RequestLogCost> {
  const servers = {} as Record<'on' | 'off', { url: string; process: ChildProcess }>
  for (const [index, recording] of (['on', 'off'] as const).entries()) {
    const port = options.port + index
    const child = spawn(...startCommand(), { stdio: ['ignore', 'ignore', 'inherit'], env: { ...options.serviceEnv, PORT: String(port), REQUEST_LOG: recording } })
    options.children.push(child)
    servers[recording] = { url: `http://127.0.0.1:${port}`, process: child }
  }
  try {
    const request = { token: options.token, method: 'GET', path: options.path }
    for (const server of Object.values(servers)) await waitFor(`${server.url}/v1/openapi.json`)
    for (const server of Object.values(servers)) await load({ url: server.url, ...request, duration: 3 })
    const cost: RequestLogCost = { on: [], off: [], cpu: { on: [], off: [] } }
    for (const recording of turns) {
      const server = servers[recording]
      const before = cpuSnapshot(server.process.pid!)
      const result = await load({ url: server.url, ...request, duration: turnSeconds })
      cost[recording].push(result.rps)
      const perRequest = cpuPerRequest(before, cpuSnapshot(server.process.pid!), result.requests)
      cost.cpu[recording].push({ ...perRequest, loadGenerator: Math.round((result.cpuMs * 1000) / Math.max(1, result.requests)) })
    }
    return cost
  } finally {
    for (const server of Object.values(servers)) server.process.kill('SIGTERM')
  }
}
