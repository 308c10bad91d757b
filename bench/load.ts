import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runJsonScript } from './json-script.ts'

export type LoadResult = { requests: number; rps: number; p50: number; p99: number; errors: number; non2xx: number; /** The load generator's own CPU time during the run. */ cpuMs: number }

export const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
export const seconds = Number(process.env.BENCH_SECONDS ?? 10)

/** Drives one scenario from bench/load-worker.ts, its own process, and returns autocannon's figures. */
export function load(scenario: Record<string, unknown>): Promise<LoadResult> {
  // A scenario can list thousands of paths: too long for one command-line argument.
  const scenarioFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-')), 'scenario.json')
  writeFileSync(scenarioFile, JSON.stringify({ connections, duration: seconds, ...scenario }))
  return runJsonScript<LoadResult>('bench/load-worker.ts', { args: [scenarioFile] })
}

export async function waitFor(url: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url)
      if (response.status < 500) return
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`${url} did not come up within ${timeoutMs} ms`)
}
