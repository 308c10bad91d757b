import { describe, expect, it } from 'vitest'
import { isoTimestamp } from './iso-timestamp.ts'

describe('isoTimestamp', () => {
  it('writes what toISOString writes, at the edges of days, months, years and its range', () => {
    const edges = [0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 946_684_799_999, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_000, 8.64e15, -8.64e15]
    for (const ms of edges) expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString())
  })

  it('writes what toISOString writes for random moments from 1970 to 9999', () => {
    let seed = 11
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 50_000; round++) {
      const ms = Math.floor(next() * 253_402_300_800_000 + next() * 1000) % 253_402_300_800_000
      expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString())
    }
  })

  it('throws as toISOString does for an invalid date', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError)
  })
})
