import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryWindows, RedisLineage } from './sliding-window.ts'

/** The rule itself, stated as plainly as possible: allowed while fewer than `limit` allowed requests lie within the window. */
function naiveWindow(limit: number, windowMs: number, admittedBefore: number[] = []) {
  const allowedAt = [...admittedBefore]
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

  it('decides at a share as the plain rule does when what Redis admitted was recorded first, keeping only the newest of it', () => {
    // What an instance admitted through Redis (a limit of 1,000), then Redis gone: memory decides at its share of 250.
    const share = 250
    const windowMs = 1_000
    const windows = new MemoryWindows()
    const recorded: number[] = []
    let now = 1_000_000
    for (let i = 0; i < 900; i++) {
      now += i % 3 === 0 ? 1 : 0
      windows.record('tok_2', share, windowMs, now)
      recorded.push(now)
    }
    // The plain rule sees every recorded admission; memory kept only 250 of the 900.
    const expected = naiveWindow(share, windowMs, recorded)
    let allowed = 0
    for (let i = 0; i < 3_000; i++) {
      now += i % 7 === 0 ? 3 : 0
      const outcome = windows.consume('tok_2', share, windowMs, now)
      expect({ allowed: outcome.allowed, remaining: outcome.remaining }).toEqual(expected(now))
      if (outcome.allowed) allowed++
    }
    expect(allowed).toBeGreaterThan(0)
    expect(allowed).toBeLessThan(3_000)
  })

  // With more keys in their window than the pruning threshold (50,000), each new key made a full
  // pass over all of them: quadratic (68 s for these 150,000), and a busy instance's event loop
  // stalled. Redis's admissions are recorded here all the time, not only while Redis is away.
  it('takes many keys all in their window in linear time', () => {
    const windows = new MemoryWindows()
    const started = performance.now()
    for (let i = 0; i < 150_000; i++) windows.consume(`addr_${i}`, 10, 60_000, 1_000_000 + i)
    expect(windows.consume('addr_149999', 10, 60_000, 1_200_000)).toMatchObject({ allowed: true, remaining: 8 })
    expect(performance.now() - started).toBeLessThan(10_000)
  })
})

describe('which Redis data an instance decided in', () => {
  afterEach(() => vi.useRealTimers())

  it('takes the first marker it sees as its own, and notices another once, for one window from then', () => {
    const lineage = new RedisLineage('rl:lineage')
    expect(lineage.recovering(60_000)).toBe(false)
    lineage.seen('1796000000000001')
    lineage.seen('1796000000000002')
    expect(lineage.known).toBe('1796000000000001')
    expect(lineage.lost('1796000000000009', 5_000)).toBe(true)
    // Other answers to requests sent before it knew say the same: the loss is noticed once.
    expect(lineage.lost('1796000000000009', 5_100)).toBe(false)
    expect(lineage.recovering(60_000, 64_999)).toBe(true)
    expect(lineage.recovering(60_000, 65_000)).toBe(false)
    expect(lineage.recovering(900_000, 65_000)).toBe(true)
  })

  it('takes a new marker as its own, not as a loss, when it had no answer from Redis for half a day (the old one may have expired)', () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 })
    const lineage = new RedisLineage('rl:lineage')
    lineage.seen('a')
    vi.setSystemTime(1_800_000_000_000 + 12 * 60 * 60 * 1000)
    expect(lineage.lost('b', Date.now())).toBe(false)
    expect(lineage.known).toBe('b')
    expect(lineage.recovering(60_000)).toBe(false)
    // Answered since: a marker changed a minute later is a loss again.
    vi.setSystemTime(Date.now() + 60_000)
    expect(lineage.lost('c', Date.now())).toBe(true)
    expect(lineage.recovering(60_000)).toBe(true)
  })
})
