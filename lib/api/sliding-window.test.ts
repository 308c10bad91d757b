import { describe, expect, it } from 'vitest'
import { MemoryWindows } from './sliding-window.ts'

/** The rule itself, stated as plainly as possible: allowed while fewer than `limit` allowed requests lie within the window. */
function naiveWindow(limit: number, windowMs: number) {
  const allowedAt: number[] = []
  return (nowMs: number) => {
    const inWindow = allowedAt.filter((at) => at > nowMs - windowMs).length
    if (inWindow >= limit) return { allowed: false, remaining: 0 }
    allowedAt.push(nowMs)
    return { allowed: true, remaining: limit - inWindow - 1 }
  }
}

describe('the in-memory sliding window', () => {
  it('decides as the plain rule does over thousands of requests, bursts and pauses included', () => {
    const limit = 300
    const windowMs = 1_000
    const windows = new MemoryWindows()
    const expected = naiveWindow(limit, windowMs)
    let now = 1_000_000
    let seed = 42
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
    let allowed = 0
    for (let i = 0; i < 6_000; i++) {
      // Mostly bursts within a millisecond, sometimes a pause longer than the window.
      now += random() < 0.01 ? 1_500 : random() < 0.7 ? 0 : Math.floor(random() * 5)
      const outcome = windows.consume('tok_1', limit, windowMs, now)
      expect({ allowed: outcome.allowed, remaining: outcome.remaining }).toEqual(expected(now))
      if (outcome.allowed) allowed++
    }
    // The test must have exercised both answers, not only one.
    expect(allowed).toBeGreaterThan(1_000)
    expect(allowed).toBeLessThan(6_000)
  })

  it('gives a released request its slot back', async () => {
    const windows = new MemoryWindows()
    const first = windows.consume('acct', 2, 60_000, 1_000)
    windows.consume('acct', 2, 60_000, 1_001)
    expect(windows.consume('acct', 2, 60_000, 1_002).allowed).toBe(false)
    await first.release()
    expect(windows.consume('acct', 2, 60_000, 1_003)).toMatchObject({ allowed: true, remaining: 0 })
  })

  // With more keys in their window than the pruning threshold (50,000), each new key made a full
  // pass over all of them: quadratic (68 s for these 150,000), and a busy instance's event loop
  // stalled.
  it('takes many keys all in their window in linear time', () => {
    const windows = new MemoryWindows()
    const started = performance.now()
    for (let i = 0; i < 150_000; i++) windows.consume(`addr_${i}`, 10, 60_000, 1_000_000 + i)
    expect(windows.consume('addr_149999', 10, 60_000, 1_200_000)).toMatchObject({ allowed: true, remaining: 8 })
    expect(performance.now() - started).toBeLessThan(10_000)
  })
})
