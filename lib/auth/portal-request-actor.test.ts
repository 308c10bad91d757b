import { encode } from 'next-auth/jwt'
import { describe, expect, it } from 'vitest'
import { decodeSessionToken, sessionTokenFromCookies } from './portal-request-actor.ts'

// The watch and lease routes read next-auth's session cookie themselves: it must open exactly
// what next-auth 4 seals, and nothing else.

const secret = 'portal-request-actor-test-secret'
const claims = { userId: 'usr_1', sessionId: 'ses_1', name: 'Ada' }

describe('decodeSessionToken', () => {
  it("opens a session next-auth encrypted, with next-auth's claims", async () => {
    const token = await encode({ token: claims, secret, maxAge: 60 })
    expect(decodeSessionToken(token, secret)).toMatchObject({ ...claims, exp: expect.any(Number), iat: expect.any(Number), jti: expect.any(String) })
  })

  it('refuses another secret, a changed byte, an expired session and junk', async () => {
    const token = await encode({ token: claims, secret, maxAge: 60 })
    expect(decodeSessionToken(token, 'another secret')).toBeNull()
    const parts = token.split('.')
    const flipped = parts[3]!.startsWith('A') ? `B${parts[3]!.slice(1)}` : `A${parts[3]!.slice(1)}`
    expect(decodeSessionToken([parts[0], parts[1], parts[2], flipped, parts[4]].join('.'), secret)).toBeNull()
    // Past its expiry and next-auth's 15 s of clock tolerance.
    expect(decodeSessionToken(token, secret, Date.now() / 1000 + 60 + 16)).toBeNull()
    expect(decodeSessionToken(token, secret, Date.now() / 1000 + 60 + 10)).not.toBeNull()
    for (const junk of ['', 'a.b.c.d.e', 'not-a-token', `${parts[0]}.x.${parts[2]}.${parts[3]}.${parts[4]}`]) expect(decodeSessionToken(junk, secret)).toBeNull()
  })
})

describe('sessionTokenFromCookies', () => {
  it('finds the session cookie, secure or not, and joins a chunked one', () => {
    expect(sessionTokenFromCookies('a=1; next-auth.session-token=abc; b=2')).toBe('abc')
    expect(sessionTokenFromCookies('__Secure-next-auth.session-token=sec')).toBe('sec')
    expect(sessionTokenFromCookies('next-auth.session-token.1=def; next-auth.session-token.0=abc')).toBe('abcdef')
    expect(sessionTokenFromCookies('next-auth.csrf-token=x')).toBeNull()
    expect(sessionTokenFromCookies(null)).toBeNull()
  })
})
