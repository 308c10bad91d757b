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
  // 10 KB, then a byte at 29 s (under the stall limit), then nothing: from 30 s on it averages
  // under 1,024 bytes a second, so it is let go then, not at the stall limit after its last byte
  // (59 s): a dripping client held its slot for up to twice MEDIA_UPLOAD_IDLE_MS.
  it('is let go once, past the first 30 s, its average is under the floor, not a stall later', () => {
    const pace = watch()
    pace.received(10_240)
    vi.advanceTimersByTime(29_000)
    pace.received(1)
    vi.advanceTimersByTime(3_000)
    expect(gaveUp?.at).toBeLessThanOrEqual(32_000)
    expect(gaveUp?.reason).toContain('too slowly')
    pace.stop()
  })

  // The same attack as the byte every 29 s, after a burst: 300 KB at once buys an average over
  // 1 KB/s for 300 s, Node's requestTimeout, so two such clients shut uploads out again.
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
  // A phone whose radio drops for 28.5 s right after the headers (under the stall limit), then
  // sends 10 KB a second: at 30.5 s it has sent 20 KB, under 1,024 bytes × 30.5 s, and is cut off.
  it('is not cut off for a pause under the stall limit before it starts sending tens of KB a second', () => {
    const pace = watch()
    vi.advanceTimersByTime(28_500)
    for (let second = 0; second < 30; second++) {
      pace.received(10_240)
      vi.advanceTimersByTime(1_000)
    }
    expect(gaveUp).toBeUndefined()
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
