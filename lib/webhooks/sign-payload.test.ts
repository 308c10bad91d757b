import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { signPayload, verifyPayloadSignature } from './sign-payload.ts'

describe('signPayload', () => {
  it('is the lowercase hex HMAC-SHA256 of the exact body bytes', () => {
    const body = '{"event":"article.published","data":{"headline":"Caf\u00e9 opens"}}'
    const signature = signPayload(body, 'a-secret-of-16-chars')
    expect(signature).toMatch(/^[0-9a-f]{64}$/)
    expect(signature).toBe(createHmac('sha256', 'a-secret-of-16-chars').update(Buffer.from(body, 'utf8')).digest('hex'))
    // A known vector (RFC 4231 test case 2), so the algorithm itself is pinned.
    expect(signPayload('what do ya want for nothing?', 'Jefe')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  })

  it('verification accepts the signature and refuses any change to body, secret or signature', () => {
    const body = '{"a":1}'
    const signature = signPayload(body, 'secret-secret-secret')
    expect(verifyPayloadSignature(body, 'secret-secret-secret', signature)).toBe(true)
    expect(verifyPayloadSignature(body, 'secret-secret-secret', signature.toUpperCase())).toBe(true)
    expect(verifyPayloadSignature('{"a": 1}', 'secret-secret-secret', signature)).toBe(false)
    expect(verifyPayloadSignature(body, 'secret-secret-secreT', signature)).toBe(false)
    expect(verifyPayloadSignature(body, 'secret-secret-secret', signature.slice(0, -1))).toBe(false)
    expect(verifyPayloadSignature(body, 'secret-secret-secret', '')).toBe(false)
  })
})
