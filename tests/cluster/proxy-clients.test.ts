import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { requestFrom, type Answer } from './fault-support.ts'

// Two clients behind HAProxy, on different addresses (127.0.0.2 and 127.0.0.3): with
// TRUSTED_PROXY_HOPS=1 each instance sees the address HAProxy saw, so one client exhausting its
// unauthenticated or sign-in budget leaves the other's intact (the budgets are small here:
// vitest.cluster.config.ts). And what the public gets through HAProxy names no instance.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const unauthenticatedBudget = Number(process.env.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE)
const signInBudget = Number(process.env.RATE_LIMIT_SIGN_IN_PER_ADDRESS)
const mallory = '127.0.0.2'
const alice = '127.0.0.3'

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
})

afterAll(() => db.$disconnect())

function cookiesOf(answer: Answer, jar: Map<string, string>): void {
  const setCookie = answer.headers['set-cookie'] ?? []
  for (const cookie of Array.isArray(setCookie) ? setCookie : [setCookie]) {
    const [pair] = cookie.split(';')
    const at = pair!.indexOf('=')
    jar.set(pair!.slice(0, at), pair!.slice(at + 1))
  }
}

/** A portal sign-in with a password, from `address`, through HAProxy: whether a session began. */
async function signIn(address: string, email: string, password: string): Promise<boolean> {
  const jar = new Map<string, string>()
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  const csrf = await requestFrom(address, 'GET', `${haproxy}/api/auth/csrf`)
  cookiesOf(csrf, jar)
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string }
  const answer = await requestFrom(address, 'POST', `${haproxy}/api/auth/callback/credentials`, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${haproxy}/`, json: 'true' }).toString(),
  })
  cookiesOf(answer, jar)
  return [...jar.keys()].some((name) => name.endsWith('next-auth.session-token'))
}

describe('two clients behind the proxy', () => {
  it('have separate unauthenticated budgets', async () => {
    const guess = (address: string) => requestFrom(address, 'GET', `${haproxy}/v1/articles`, { headers: { Authorization: 'Bearer nrs_not_a_real_token' } })
    const mallorys: number[] = []
    for (let i = 0; i <= unauthenticatedBudget; i++) mallorys.push((await guess(mallory)).status)
    expect(mallorys.slice(0, unauthenticatedBudget).every((status) => status === 401)).toBe(true)
    expect(mallorys[unauthenticatedBudget]).toBe(429)
    // Alice, another address, is not punished for Mallory's guesses.
    expect((await guess(alice)).status).toBe(401)
  })

  it('have separate sign-in budgets: one address failing sign-ins does not lock the newsroom out', async () => {
    const email = `editor@${newsroom.tenant.slug}.example`
    // Mallory tries many accounts (each once, so no account's own budget is reached).
    for (let i = 0; i < signInBudget; i++) expect(await signIn(mallory, `nobody-${i}@${newsroom.tenant.slug}.example`, 'wrong')).toBe(false)
    // Mallory's address is now refused, even with the right password...
    expect(await signIn(mallory, email, 'test-password')).toBe(false)
    // ...and the editor, from her own address, signs in.
    expect(await signIn(alice, email, 'test-password')).toBe(true)
  })

  it('the public sees no instance names and no cache tags through HAProxy', async () => {
    const answer = await requestFrom(alice, 'GET', `${haproxy}/healthz`)
    expect(answer.status).toBe(200)
    expect(answer.headers['x-served-by']).toBeUndefined()
    // The content API is Varnish's: HAProxy sends it there rather than answering it uncached.
    const content = await requestFrom(alice, 'GET', `${haproxy}/content/v1/articles?key=nrc_x`)
    expect(content.status).toBe(308)
    expect(content.headers.location).toBe(`http://127.0.0.1:${layout.ports.varnish}/content/v1/articles?key=nrc_x`)
  })
})
