import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { watchBodyPace } from './body-pace.ts'

// The pace rule, on a clock of our own: MEDIA_UPLOAD_IDLE_MS 30 s, MEDIA_UPLOAD_MIN_BYTES_PER_SECOND 1,024 (the defaults).
let gaveUp: { at: number; reason: string } | undefined
let start = 0
const watch = () => watchBodyPace((reason) => (gaveUp = { at: Date.now() - start, reason }), () => Date.now())

beforeEach(() => {
  vi.useFakeTimers()
  vi.stubEnv('MEDIA_UPLOAD_IDLE_MS', '')
  vi.stubEnv('MEDIA_UPLOAD_MIN_BYTES_PER_SECOND', '')
  start = Date.now()
  gaveUp = undefined
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllEnvs()
})

describe('a body that arrives too slowly', () => {
  // 10 KB, then a byte at 29 s (under the stall limit), then nothing: the first 30 s brought
  // under 1,024 bytes a second, so it is let go then, not at the stall limit after its last byte
  // (59 s): a dripping client held its slot for up to twice MEDIA_UPLOAD_IDLE_MS.
  it('is let go once, past the first 30 s, the last 30 s brought under the floor, not a stall later', () => {
    const pace = watch()
    pace.received(10_240)
    vi.advanceTimersByTime(29_000)
    pace.received(1)
    vi.advanceTimersByTime(3_000)
    expect(gaveUp?.at).toBeLessThanOrEqual(32_000)
    expect(gaveUp?.reason).toContain('too slowly')
    pace.stop()
  })

  // The same attack as the byte every 29 s, after a burst: with an average since the start, 300 KB
  // at once bought 300 s, Node's requestTimeout, so two such clients shut uploads out again.
  it('is let go well before Node’s requestTimeout when a burst is followed by a byte every 29 s', () => {
    const pace = watch()
    pace.received(300 * 1024)
    for (let t = 0; t < 290_000 && !gaveUp; t += 29_000) {
      vi.advanceTimersByTime(29_000)
      pace.received(1)
    }
    expect(gaveUp).toBeDefined()
    expect(gaveUp!.at).toBeLessThan(120_000)
    pace.stop()
  })
})

describe('an honest slow client', () => {
  it('sending a few KB a second with pauses under the stall limit is never let go', () => {
    const pace = watch()
    for (let second = 0; second < 300; second++) {
      // 5 KB a second, but nothing at all for 15 s every minute (a train through tunnels).
      if (second % 60 < 45) pace.received(5 * 1024)
      vi.advanceTimersByTime(1_000)
    }
    expect(gaveUp).toBeUndefined()
    pace.stop()
  })

  // The rule's price, written down: a client that sends nothing for a span and only then starts
  // (a phone whose radio dropped for 28.5 s right after the headers) cannot be told from one that
  // holds a slot; it is let go at the end of the first span, told why, and may send again.
  it('that sends almost nothing in its first 30 s is let go then, with the reason', () => {
    const pace = watch()
    vi.advanceTimersByTime(28_500)
    pace.received(10_240)
    vi.advanceTimersByTime(1_500)
    expect(gaveUp).toEqual({ at: 30_000, reason: 'arrived too slowly: under 1,024 bytes a second over the last 30 s' })
    pace.stop()
  })
})

describe('a fast client that stops', () => {
  // 40 s of 16 KB every 100 ms, then nothing: the last 30 s keep 30,720 bytes (the least) until
  // the second-to-last chunk leaves them, at 39.9 + 30 s, so it is let go then: not when the
  // first chunks of the span leave, nor a whole stall later.
  it('is let go when the chunks that make up the least leave the span', () => {
    const pace = watch()
    for (let tenth = 0; tenth < 400; tenth++) {
      pace.received(16 * 1024)
      vi.advanceTimersByTime(100)
    }
    vi.advanceTimersByTime(29_700)
    expect(gaveUp).toBeUndefined()
    vi.advanceTimersByTime(300)
    expect(gaveUp).toEqual({ at: 69_800, reason: 'arrived too slowly: under 1,024 bytes a second over the last 30 s' })
    pace.stop()
  })
})

describe('an operator’s long stall limit', () => {
  // MEDIA_UPLOAD_IDLE_MS past setTimeout's range (2^31 - 1 ms, about 24.8 days), set to switch
  // the stall limit off in effect: Node fires such a timer after 1 ms, so every upload and bulk
  // import was refused at once as "stalled: no data arrived for 3,000,000 s".
  it('does not let every body go at once', async () => {
    vi.useRealTimers()
    vi.stubEnv('MEDIA_UPLOAD_IDLE_MS', '3000000000')
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const pace = watch()
    pace.received(1_024)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(gaveUp).toBeUndefined()
    pace.stop()
    warn.mockRestore()
  })
})
