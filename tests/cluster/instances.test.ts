import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { restartApp } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// What three instances must share through Redis and the secrets file (rate limits, sessions),
// and how HAProxy treats an instance that stops (SIGTERM: drained first).

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`
const standardBudget = Number(process.env.RATE_LIMIT_STANDARD_PER_MINUTE)

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'standard' })
})

afterAll(() => db.$disconnect())

describe('three instances share', () => {
  it('one rate limit: a token gets exactly its budget, however HAProxy spreads its requests', async () => {
    const client = apiClient(haproxy, await newsroom.token(['articles:read'], 'editor'))
    const statuses: number[] = []
    const servedBy = new Set<string>()
    for (let i = 0; i < standardBudget + 9; i++) {
      // The cluster names the instance only for a request carrying its trace token.
      const answer = await client.get('/v1/articles?limit=1', { 'X-Cluster-Trace': layout.appEnv.METRICS_TOKEN! })
      statuses.push(answer.status)
      servedBy.add(answer.headers.get('x-served-by') ?? '')
    }
    expect(servedBy).toEqual(new Set(['app-1', 'app-2', 'app-3']))
    expect(statuses.filter((status) => status === 200)).toHaveLength(standardBudget)
    expect(statuses.filter((status) => status === 429)).toHaveLength(9)
    // The refusals come after the budget, not scattered through it.
    expect(statuses.slice(0, standardBudget).every((status) => status === 200)).toBe(true)
  })

  it('portal sessions: signed in through one instance, the session cookie works on the others', async () => {
    const first = instance(0)
    const csrf = await fetch(`${first}/api/auth/csrf`)
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookies = new Map<string, string>()
    const keep = (response: Response) => {
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(';')
        const at = pair!.indexOf('=')
        cookies.set(pair!.slice(0, at), pair!.slice(at + 1))
      }
    }
    keep(csrf)
    const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const signIn = await fetch(`${first}/api/auth/callback/credentials`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookieHeader() },
      body: new URLSearchParams({ csrfToken, email: `editor@${newsroom.tenant.slug}.example`, password: 'test-password', callbackUrl: `${first}/`, json: 'true' }),
    })
    keep(signIn)
    expect([...cookies.keys()].some((name) => name.endsWith('next-auth.session-token'))).toBe(true)
    for (const index of [1, 2]) {
      const session = await fetch(`${instance(index)}/api/auth/session`, { headers: { Cookie: cookieHeader() } })
      expect(((await session.json()) as { user?: { email?: string } }).user?.email).toBe(`editor@${newsroom.tenant.slug}.example`)
    }
    // Without the cookie the same instance knows no one.
    expect(await (await fetch(`${instance(2)}/api/auth/session`)).json()).toEqual({})
  })
})

describe('an instance that stops', () => {
  it('on SIGTERM answers 503 on /readyz while it still serves, and HAProxy sends its traffic elsewhere', async () => {
    const pid = Number(readFileSync(path.join(layout.dir, 'app-2.pid'), 'utf8'))
    const client = apiClient(haproxy, await newsroom.token(['articles:read'], 'admin'))
    process.kill(pid, 'SIGTERM')
    try {
      // The signal is handled in the process's next turn: a request already on its way may be
      // answered first (it was, once, on a loaded machine), so /readyz is asked until it says so.
      let readyz = await fetch(`${instance(1)}/readyz`)
      for (let tries = 0; readyz.status === 200 && tries < 20; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        readyz = await fetch(`${instance(1)}/readyz`)
      }
      expect(readyz.status).toBe(503)
      expect(((await readyz.json()) as { draining?: boolean }).draining).toBe(true)
      // Still serving what reaches it directly while HAProxy's checks take it out.
      expect((await fetch(`${instance(1)}/healthz`)).status).toBe(200)
      // No request through HAProxy fails while it drains and closes.
      const statuses: number[] = []
      for (let i = 0; i < 15; i++) statuses.push((await client.get('/v1/articles?limit=1')).status)
      expect(statuses.filter((status) => status !== 200)).toEqual([])
    } finally {
      await waitClosed(layout.ports.apps[1]!)
      await restartApp(1)
    }
  })
})

async function waitClosed(port: number): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const open = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(() => true, () => false)
    if (!open) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`The instance on :${port} did not stop`)
}
