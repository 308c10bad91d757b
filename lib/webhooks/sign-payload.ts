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

/**
 * One entry of Standard Webhooks' `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`. The standard keys the HMAC with the bytes a `whsec_<base64>` secret
 * decodes to; our secrets are strings subscribers choose, so the key is the secret's UTF-8
 * bytes, the same key X-Service-Signature uses. A receiver hands the `standardwebhooks`
 * libraries `whsec_` + base64(secret) (see standardWebhooksSecret).
 */
export function standardSignature(secret: string, webhookId: string, timestamp: number, body: string): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${webhookId}.${timestamp}.`).update(body)
  return `v1,${hmac.digest('base64')}`
}

/** The form of a secret the `standardwebhooks` libraries take: its UTF-8 bytes, base64, after `whsec_`. */
export function standardWebhooksSecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`
}
