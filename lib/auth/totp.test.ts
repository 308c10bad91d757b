import { describe, expect, it } from 'vitest'
import { fromBase32, matchTotp, toBase32, totpCode, totpStep } from './totp.ts'

// RFC 6238 appendix B's SHA-1 vectors: the 20-byte ASCII key "12345678901234567890", 8 digits
// there; the last 6 of each are what a 6-digit app shows.
const rfcKey = toBase32(Buffer.from('12345678901234567890'))

describe('TOTP (RFC 6238)', () => {
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('at %i s gives the RFC test vector', (seconds, eightDigits) => {
    expect(totpCode(rfcKey, totpStep(seconds * 1000))).toBe(eightDigits.slice(-6))
  })

  it('round-trips base32', () => {
    expect(fromBase32(rfcKey).toString()).toBe('12345678901234567890')
    expect(rfcKey).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')
  })

  it('accepts one step of drift either side and refuses two, and a used step or older', () => {
    const at = 1_700_000_000_000
    const now = totpStep(at)
    expect(matchTotp(rfcKey, totpCode(rfcKey, now), { at })).toBe(now)
    expect(matchTotp(rfcKey, totpCode(rfcKey, now - 1), { at })).toBe(now - 1)
    expect(matchTotp(rfcKey, totpCode(rfcKey, now + 1), { at })).toBe(now + 1)
    expect(matchTotp(rfcKey, totpCode(rfcKey, now - 2), { at })).toBeNull()
    expect(matchTotp(rfcKey, totpCode(rfcKey, now + 2), { at })).toBeNull()
    expect(matchTotp(rfcKey, totpCode(rfcKey, now), { at, lastUsedStep: now })).toBeNull()
    expect(matchTotp(rfcKey, totpCode(rfcKey, now - 1), { at, lastUsedStep: now })).toBeNull()
    expect(matchTotp(rfcKey, 'abcdef', { at })).toBeNull()
  })
})
