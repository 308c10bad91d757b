import { createHmac, timingSafeEqual } from 'node:crypto'

/** X-Service-Signature: lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret. */
export function signPayload(body: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/** The receiver's check, as docs/webhooks.md describes it: recompute, then compare in constant time. */
export function verifyPayloadSignature(body: string | Uint8Array, secret: string, signature: string): boolean {
  const expected = Buffer.from(signPayload(body, secret), 'utf8')
  const given = Buffer.from(signature.trim().toLowerCase(), 'utf8')
  return expected.length === given.length && timingSafeEqual(expected, given)
}
