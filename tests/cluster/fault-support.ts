import { appendFileSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { clusterLayout } from '../../scripts/cluster-layout.ts'

const layout = clusterLayout()

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string }

/**
 * One HTTP request from a given loopback address (127.0.0.2, 127.0.0.3…): two "clients" on
 * one machine that HAProxy sees as different addresses, as two people on the internet are.
 */
export function requestFrom(localAddress: string, method: string, url: string, options: { headers?: Record<string, string>; body?: string; timeoutMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, localAddress, agent: false, headers: { ...options.headers, ...(options.body !== undefined && { 'Content-Length': String(Buffer.byteLength(options.body)) }) }, timeout: options.timeoutMs ?? 15_000 }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The pid of app instance `index` (0-based), as the cluster keeps it. */
export function appPid(index: number): number {
  return Number(readFileSync(path.join(layout.dir, `app-${index + 1}.pid`), 'utf8'))
}

/** Polls `check` every `everyMs` until it returns a value (not undefined/false) or `timeoutMs` pass. */
export async function pollFor<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  throw new Error(`Timed out waiting for ${what}`)
}

export const faultReportFile = path.join(os.tmpdir(), 'newsroom-cluster-faults.jsonl')

/** Records what a fault test measured (printed, and appended for bench/results/). */
export function reportFault(fault: string, figures: Record<string, number | string>): void {
  const line = { fault, at: new Date().toISOString(), ...figures }
  console.log(`[fault] ${JSON.stringify(line)}`)
  appendFileSync(faultReportFile, JSON.stringify(line) + '\n')
}

/**
 * Seconds during which answers of a kind were failures: the span from the first failure to the
 * last one's end (0 when none failed).
 */
export function unavailableSeconds(outcomes: { startedAt: number; endedAt: number; ok: boolean }[]): number {
  const failed = outcomes.filter((outcome) => !outcome.ok)
  if (failed.length === 0) return 0
  return Math.round((Math.max(...failed.map((outcome) => outcome.endedAt)) - Math.min(...failed.map((outcome) => outcome.startedAt))) / 100) / 10
}
