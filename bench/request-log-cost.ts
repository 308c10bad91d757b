import { spawn, type ChildProcess } from 'node:child_process'
import { startCommand } from '../scripts/start-command.ts'
import { load, waitFor } from './load.ts'

export type RequestLogCost = { on: number[]; off: number[] }

/**
 * What recording every request in the request log costs (issue 14: at most 5% of get-by-id):
 * `path` on the running service against a second server started with REQUEST_LOG=off, both
 * warmed on it, then measured in turns, each going first once so that neither always inherits
 * the other's leftovers (a log flush, Redis's work).
 */
export async function measureRequestLogCost(options: { serviceUrl: string; serviceEnv: NodeJS.ProcessEnv; port: number; token: string; path: string; children: ChildProcess[] }): Promise<RequestLogCost> {
  const quiet = spawn(...startCommand(), { stdio: ['ignore', 'ignore', 'inherit'], env: { ...options.serviceEnv, PORT: String(options.port), REQUEST_LOG: 'off' } })
  options.children.push(quiet)
  try {
    const quietUrl = `http://127.0.0.1:${options.port}`
    await waitFor(`${quietUrl}/v1/openapi.json`)
    const request = { token: options.token, method: 'GET', path: options.path }
    for (const url of [options.serviceUrl, quietUrl]) await load({ url, ...request, duration: 3 })
    const cost: RequestLogCost = { on: [], off: [] }
    for (const order of [['on', 'off'], ['off', 'on']] as const) {
      for (const recording of order) cost[recording].push((await load({ url: recording === 'on' ? options.serviceUrl : quietUrl, ...request })).rps)
    }
    return cost
  } finally {
    quiet.kill('SIGTERM')
  }
}
