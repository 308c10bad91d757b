import { createHmac } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { signPayload, standardSignature, standardWebhooksSecret, verifyPayloadSignature } from './sign-payload.ts'

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

describe('standardSignature', () => {
  const body = '{"event":"article.published","data":{"headline":"Caf\u00e9 opens"}}'
  const now = Math.floor(Date.now() / 1000)

  it('verifies with the standardwebhooks package given whsec_ + base64 of the secret, also for non-ASCII secrets', () => {
    for (const secret of ['a-secret-of-16-chars', 'whsec_looks-standard-but-is-ours', 'sécret-with-ümlauts-✓']) {
      const headers = { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(now), 'webhook-signature': standardSignature(secret, 'dlv_1', now, body) }
      expect(new Webhook(standardWebhooksSecret(secret)).verify(body, headers)).toEqual(JSON.parse(body))
      expect(new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body))
    }
  })

  it('is refused for another id, timestamp, body or secret', () => {
    const secret = 'a-secret-of-16-chars'
    const receiver = new Webhook(standardWebhooksSecret(secret))
    const signature = standardSignature(secret, 'dlv_1', now, body)
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(() => receiver.verify(body, { 'webhook-id': 'dlv_2', 'webhook-timestamp': String(now), 'webhook-signature': signature })).toThrow()
    expect(() => receiver.verify(body, { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(now + 1), 'webhook-signature': signature })).toThrow()
    expect(() => receiver.verify(`${body} `, { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(now), 'webhook-signature': signature })).toThrow()
    const other = standardSignature('another-secret-16-chars', 'dlv_1', now, body)
    expect(() => receiver.verify(body, { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(now), 'webhook-signature': other })).toThrow()
    // Replays: a signature older than the standard's five-minute tolerance is refused even when genuine.
    const old = now - 600
    expect(() => receiver.verify(body, { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(old), 'webhook-signature': standardSignature(secret, 'dlv_1', old, body) })).toThrow(/too old/)
  })
})
