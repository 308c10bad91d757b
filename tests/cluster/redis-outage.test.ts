import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { haproxyServerStatus, redisServers } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { pollFor, reportFault, unavailableSeconds } from './fault-support.ts'

// Redis (master and replica) stopped for 8 s while clients read and write through HAProxy:
// Redis holds caches and limit windows only, so no read may fail, every write either succeeds
// or is refused with 503 and Retry-After, every instance stays in HAProxy's rotation, and the
// instances report the degraded mode and leave it by themselves once Redis is back.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`
const outageMs = 8_000

let newsroom: TestTenant
let token: string

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
})

afterAll(async () => {
  await redisServers('start').catch(() => undefined)
  await db.$disconnect()
})

type Outcome = { kind: 'read' | 'write'; status: number; retryAfter: string | null; startedAt: number; endedAt: number; ok: boolean }

async function redisUp(index: number): Promise<number | undefined> {
  const text = await fetch(`${instance(index)}/metrics`, { headers: { Authorization: `Bearer ${layout.appEnv.METRICS_TOKEN}` } }).then((r) => r.text(), () => '')
  const match = /^newsroom_redis_up(?:\{[^}]*\})? (\d)/m.exec(text)
  return match ? Number(match[1]) : undefined
}

describe('Redis stopped under load', () => {
  it('fails no read, answers writes with success or 503 + Retry-After, keeps every instance in rotation, and recovers by itself', async () => {
    const client = apiClient(haproxy, token)
    const seed = (await client.post('/v1/articles', { headline: 'Read during the Redis outage' })).body
    const outcomes: Outcome[] = []
    let running = true
    const loop = async (kind: Outcome['kind'], send: () => Promise<{ status: number; headers: Headers }>) => {
      while (running) {
        const startedAt = performance.now()
        const answer = await send().catch(() => ({ status: 0, headers: new Headers() }))
        const ok = kind === 'read' ? answer.status === 200 : answer.status === 201
        outcomes.push({ kind, status: answer.status, retryAfter: answer.headers.get('retry-after'), startedAt, endedAt: performance.now(), ok })
      }
    }
    let written = 0
    const loops = [
      loop('read', () => client.get(`/v1/articles/${seed.article_id}`)),
      loop('read', () => client.get('/v1/articles?limit=5')),
      loop('read', () => client.get('/v1/articles?limit=5&status=draft')),
      loop('write', () => client.post('/v1/articles', { headline: `During the outage ${written++}` })),
    ]
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const stoppedAt = performance.now()
    await redisServers('stop')
    const readiness: number[] = []
    const rotation: (string | undefined)[] = []
    const degraded = await pollFor(async () => ((await redisUp(0)) === 0 ? true : undefined), 'an instance reporting newsroom_redis_up 0', 5_000, 200)
    while (performance.now() - stoppedAt < outageMs) {
      for (const index of [0, 1, 2]) {
        readiness.push(await fetch(`${instance(index)}/readyz`).then((r) => r.status, () => 0))
        rotation.push(await haproxyServerStatus(`app-${index + 1}`))
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    await redisServers('start')
    const restartedAt = performance.now()
    // Each instance reconnects by itself (through Sentinel) and says so.
    for (const index of [0, 1, 2]) await pollFor(async () => ((await redisUp(index)) === 1 ? true : undefined), `app-${index + 1} back on Redis`, 20_000, 250)
    const reconnectSeconds = Math.round((performance.now() - restartedAt) / 100) / 10
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    running = false
    await Promise.all(loops)

    const reads = outcomes.filter((outcome) => outcome.kind === 'read')
    const writes = outcomes.filter((outcome) => outcome.kind === 'write')
    expect(degraded).toBe(true)
    expect(reads.length).toBeGreaterThan(50)
    expect(reads.filter((outcome) => !outcome.ok).map((outcome) => outcome.status)).toEqual([])
    const refusedWrites = writes.filter((outcome) => !outcome.ok)
    expect(refusedWrites.filter((outcome) => outcome.status !== 503 || !outcome.retryAfter).map((outcome) => outcome.status)).toEqual([])
    expect(readiness.filter((status) => status !== 200)).toEqual([])
    expect(rotation.filter((status) => status !== 'UP')).toEqual([])

    reportFault('Redis (master and replica) stopped 8 s under load through HAProxy', {
      reads: reads.length,
      failed_reads: reads.filter((outcome) => !outcome.ok).length,
      writes: writes.length,
      writes_503: refusedWrites.length,
      write_unavailability_seconds: unavailableSeconds(writes),
      read_unavailability_seconds: unavailableSeconds(reads),
      reconnect_seconds_after_restart: reconnectSeconds,
      requests_lost: 0,
    })
  })
})
