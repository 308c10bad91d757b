import { createHmac, timingSafeEqual } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/**
 * Verifying a delivery before acting on it. Give both functions the raw body exactly as it
 * arrived (before any JSON parsing) and the secret you chose for the subscription.
 */

/** The secret as Standard Webhooks libraries take it: `whsec_` and the base64 of its UTF-8 bytes. */
export function standardWebhooksSecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`
}

/**
 * Checks `webhook-id`, `webhook-timestamp` and `webhook-signature` with the `standardwebhooks`
 * package (which also refuses a delivery more than five minutes old) and returns the parsed
 * envelope; throws when the delivery is not genuine.
 */
export function verifyWebhook<Envelope = unknown>(rawBody: string, headers: Record<string, string | string[] | undefined> | Headers, secret: string): Envelope {
  const plain: Record<string, string> = {}
  if (headers instanceof Headers) headers.forEach((value, name) => (plain[name] = value))
  else for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  return new Webhook(standardWebhooksSecret(secret)).verify(rawBody, plain) as Envelope
}

/** The legacy `X-Service-Signature`: lowercase hex HMAC-SHA256 of the body bytes, compared in constant time. */
export function verifyServiceSignature(rawBody: string | Uint8Array, signature: string | null | undefined, secret: string): boolean {
  if (!signature) return false
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'))
  const given = Buffer.from(signature.trim().toLowerCase())
  return expected.length === given.length && timingSafeEqual(expected, given)
}
