import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  consumeSignInAttempt,
  consumeTokenRequest,
  consumeUnauthenticatedRequest,
  rateLimitHeaders,
  resetRateLimitersForTests,
} from './rate-limit.ts'

const savedEnv = { ...process.env }

beforeEach(() => {
  // The in-memory limiter, whatever the machine's environment says.
  delete process.env.REDIS_URL
  Object.assign(process.env, {
    RATE_LIMIT_STANDARD_PER_MINUTE: '5',
    RATE_LIMIT_ENTERPRISE_PER_MINUTE: '8',
    RATE_LIMIT_WINDOW_SECONDS: '60',
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3',
    RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '3',
    RATE_LIMIT_SIGN_IN_PER_ADDRESS: '5',
    RATE_LIMIT_SIGN_IN_WINDOW_SECONDS: '900',
  })
  resetRateLimitersForTests()
  vi.useFakeTimers({ now: new Date('2026-03-02T10:00:00.250Z') })
})

afterEach(() => {
  vi.useRealTimers()
  process.env = { ...savedEnv }
  resetRateLimitersForTests()
})

async function spend(times: number, consume: () => { allowed: boolean } | Promise<{ allowed: boolean }>) {
  const allowed: boolean[] = []
  for (let i = 0; i < times; i++) allowed.push((await consume()).allowed)
  return allowed
}

describe('per-token rate limit', () => {
  it('allows exactly the limit, then denies until the window ends', async () => {
    expect(await spend(7, () => consumeTokenRequest('tok_1', 'standard'))).toEqual([true, true, true, true, true, false, false])

    vi.advanceTimersByTime(59_000)
    expect((await consumeTokenRequest('tok_1', 'standard')).allowed).toBe(false)
    vi.advanceTimersByTime(1_001)
    expect(await consumeTokenRequest('tok_1', 'standard')).toMatchObject({ allowed: true, remaining: 4 })
  })

  it('counts each token on its own', async () => {
    await spend(5, () => consumeTokenRequest('tok_1', 'standard'))
    expect((await consumeTokenRequest('tok_1', 'standard')).allowed).toBe(false)
    expect(await consumeTokenRequest('tok_2', 'standard')).toMatchObject({ allowed: true, remaining: 4 })
  })

  it("takes the limit from the tenant's plan", async () => {
    expect(await spend(9, () => consumeTokenRequest('tok_e', 'enterprise'))).toEqual([...Array(8).fill(true), false])
    expect(await consumeTokenRequest('tok_s', 'standard')).toMatchObject({ limit: 5 })
    expect(await consumeTokenRequest('tok_e2', 'enterprise')).toMatchObject({ limit: 8 })
  })

  it('uses 1,000 and 10,000 per 60 s without overrides', async () => {
    delete process.env.RATE_LIMIT_STANDARD_PER_MINUTE
    delete process.env.RATE_LIMIT_ENTERPRISE_PER_MINUTE
    delete process.env.RATE_LIMIT_WINDOW_SECONDS
    resetRateLimitersForTests()
    const standard = await consumeTokenRequest('tok_s', 'standard')
    const enterprise = await consumeTokenRequest('tok_e', 'enterprise')
    expect(standard).toMatchObject({ limit: 1_000, remaining: 999, resetSeconds: 60 })
    expect(enterprise).toMatchObject({ limit: 10_000, remaining: 9_999 })
    expect(rateLimitHeaders(enterprise)['RateLimit-Policy']).toBe('"per-token";q=10000;w=60')
  })

  it('counts the headers down and adds Retry-After only when denied', async () => {
    const nowSeconds = Date.now() / 1000
    for (const [elapsed, remaining] of [4, 3, 2, 1, 0].entries()) {
      const headers = rateLimitHeaders(await consumeTokenRequest('tok_1', 'standard'))
      expect(headers).toEqual({
        'RateLimit-Policy': '"per-token";q=5;w=60',
        RateLimit: `"per-token";r=${remaining};t=${60 - elapsed}`,
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': String(remaining),
        'X-RateLimit-Reset': String(Math.ceil(nowSeconds + 60)),
      })
      vi.advanceTimersByTime(1_000)
    }

    const denied = await consumeTokenRequest('tok_1', 'standard')
    expect(denied).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 55, retryAfterSeconds: 55 })
    const headers = rateLimitHeaders(denied)
    expect(headers['Retry-After']).toBe('55')
    expect(headers.RateLimit).toBe('"per-token";r=0;t=55')
    // Epoch seconds of the window's end, never before it.
    expect(Number(headers['X-RateLimit-Reset'])).toBeGreaterThanOrEqual(nowSeconds + 60)
    expect(Number(headers['X-RateLimit-Reset'])).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 61)
  })

  it('never asks to retry after less than one second', async () => {
    await spend(5, () => consumeTokenRequest('tok_1', 'standard'))
    vi.advanceTimersByTime(59_800)
    const denied = await consumeTokenRequest('tok_1', 'standard')
    expect(denied).toMatchObject({ allowed: false, retryAfterSeconds: 1 })
    expect(rateLimitHeaders(denied)['Retry-After']).toBe('1')
  })

  it('rejects a misconfigured limit instead of guessing', async () => {
    process.env.RATE_LIMIT_STANDARD_PER_MINUTE = '1e3x'
    resetRateLimitersForTests()
    await expect(consumeTokenRequest('tok_1', 'standard')).rejects.toThrow(/RATE_LIMIT_STANDARD_PER_MINUTE/)
  })
})

describe('unauthenticated rate limit', () => {
  it('limits each client address on its own', async () => {
    expect(await spend(4, () => consumeUnauthenticatedRequest('203.0.113.9'))).toEqual([true, true, true, false])
    // The same client seen through a dual-stack socket is the same client.
    expect((await consumeUnauthenticatedRequest('::ffff:203.0.113.9')).allowed).toBe(false)
    expect(await consumeUnauthenticatedRequest('2001:db8::1')).toMatchObject({ allowed: true, remaining: 2 })

    const denied = await consumeUnauthenticatedRequest('203.0.113.9')
    expect(denied).toMatchObject({ policy: 'per-address', limit: 3, retryAfterSeconds: 60 })
    expect(rateLimitHeaders(denied)).toMatchObject({ 'RateLimit-Policy': '"per-address";q=3;w=60', 'Retry-After': '60' })
  })
})

describe('sign-in attempts', () => {
  it('locks one account against the addresses that failed for it, never against one that did not (issue 46)', async () => {
    let n = 0
    expect(await spend(2, () => consumeSignInAttempt('Editor@Example.com', `198.51.100.${n++}`))).toEqual([true, true])
    // A typo from the member's desk earlier on: one failure from 192.0.2.1.
    expect((await consumeSignInAttempt('editor@example.com', '192.0.2.1')).lastBeforeLock).toBe(true)
    // Locked now. An address that failed as often as the budget is refused until its window frees a slot.
    expect(await spend(1, () => consumeSignInAttempt('editor@example.com', '198.51.100.0'))).toEqual([true])
    expect(await spend(1, () => consumeSignInAttempt('editor@example.com', '198.51.100.0'))).toEqual([true])
    const denied = await consumeSignInAttempt(' editor@example.com ', '198.51.100.0')
    expect(denied).toMatchObject({ allowed: false, policy: 'sign-in-account-address', limit: 3, retryAfterSeconds: 900, accountLocked: true, lockEndsInSeconds: 900 })
    expect(rateLimitHeaders(denied)['RateLimit-Policy']).toBe('"sign-in-account-address";q=3;w=900')
    // The member's desk (one failure) and a fresh address may still try: the lock is not theirs.
    expect(await consumeSignInAttempt('editor@example.com', '192.0.2.1')).toMatchObject({ allowed: true, accountLocked: true, lockEndsInSeconds: 900, failuresFromHere: 1 })
    expect(await consumeSignInAttempt('editor@example.com', '192.0.2.2')).toMatchObject({ allowed: true, accountLocked: true, failuresFromHere: 0 })
    expect((await consumeSignInAttempt('writer@example.com', '198.51.100.0')).allowed).toBe(true)
  })

  it('the failure that fills the account budget is the one that locks it', async () => {
    const [first, second] = [await consumeSignInAttempt('lock@example.com', '192.0.2.30'), await consumeSignInAttempt('lock@example.com', '192.0.2.31')]
    expect([first.lastBeforeLock, second.lastBeforeLock]).toEqual([false, false])
    expect(await consumeSignInAttempt('lock@example.com', '192.0.2.32')).toMatchObject({ allowed: true, lastBeforeLock: true, accountLocked: false })
  })

  it('one address failing for one account is refused there after the account budget, with the wait of its own window', async () => {
    expect(await spend(3, () => consumeSignInAttempt('pair@example.com', '192.0.2.40'))).toEqual([true, true, true])
    expect(await consumeSignInAttempt('pair@example.com', '192.0.2.40')).toMatchObject({ allowed: false, policy: 'sign-in-account-address', retryAfterSeconds: 900 })
  })

  it('limits one address across many accounts', async () => {
    let n = 0
    expect(await spend(6, () => consumeSignInAttempt(`user${n++}@example.com`, '192.0.2.7'))).toEqual([true, true, true, true, true, false])
    expect(await consumeSignInAttempt('someone@example.com', '192.0.2.7')).toMatchObject({ allowed: false, policy: 'sign-in-address' })
    expect((await consumeSignInAttempt('someone@example.com', '192.0.2.8')).allowed).toBe(true)
  })

  it('counts failures only: a successful sign-in and a refused one give their slots back', async () => {
    for (let i = 0; i < 10; i++) {
      const attempt = await consumeSignInAttempt('busy@example.com', '192.0.2.20')
      expect(attempt.allowed).toBe(true)
      await attempt.succeeded()
    }
    const failures = await spend(3, () => consumeSignInAttempt('busy@example.com', '192.0.2.20'))
    expect(failures).toEqual([true, true, true])
    // Refused by this address's budget for the account: the address budget (5) is not spent by the refusal.
    expect((await consumeSignInAttempt('busy@example.com', '192.0.2.20')).allowed).toBe(false)
    expect((await consumeSignInAttempt('busy@example.com', '192.0.2.20')).allowed).toBe(false)
    expect(await consumeSignInAttempt('other@example.com', '192.0.2.20')).toMatchObject({ allowed: true, policy: 'sign-in-address', remaining: 1 })
  })

  it('reports the budget closest to running out', async () => {
    const first = await consumeSignInAttempt('a@example.com', '192.0.2.9')
    expect(first).toMatchObject({ allowed: true, policy: 'sign-in-account', remaining: 2 })
    await consumeSignInAttempt('b@example.com', '192.0.2.9')
    await consumeSignInAttempt('c@example.com', '192.0.2.9')
    // Address: 4 of 5 spent, 1 left; account d: 1 of 3 spent, 2 left.
    expect(await consumeSignInAttempt('d@example.com', '192.0.2.9')).toMatchObject({ policy: 'sign-in-address', remaining: 1 })
  })
})
