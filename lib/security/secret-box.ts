import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { ensureLocalSecrets } from '../config/local-secrets.ts'

// Secrets the service must use again (webhook signing secrets, a newsroom's SSO client secret)
// are encrypted, not hashed; all of them share this box and its key. The stored form names its version so the scheme can change without a migration.
const version = 'v1'
const algorithm = 'aes-256-gcm'
const ivBytes = 12

let cachedKey: { source: string; key: Buffer } | undefined

/**
 * The 32-byte key derived from WEBHOOK_SECRET_KEY. Any string works as the source (the
 * launcher generates a base64url one); HKDF turns it into a proper AES key. Outside
 * production a missing key is taken from (or made in) .data/secrets.json, as the launcher does.
 */
function encryptionKey(): Buffer {
  let source = process.env.WEBHOOK_SECRET_KEY
  if (!source && process.env.NODE_ENV !== 'production') source = ensureLocalSecrets().WEBHOOK_SECRET_KEY
  if (!source) throw new Error('WEBHOOK_SECRET_KEY is not set; webhook signing secrets and SSO client secrets cannot be encrypted or read.')
  if (cachedKey?.source !== source) {
    const key = Buffer.from(hkdfSync('sha256', source, 'newsroom-webhooks', 'webhook signing secret v1', 32))
    cachedKey = { source, key }
  }
  return cachedKey.key
}

/** Encrypts a secret (a webhook's signing secret, an SSO client secret) for storage: `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export function encryptSecret(secret: string): string {
  const iv = randomBytes(ivBytes)
  const cipher = createCipheriv(algorithm, encryptionKey(), iv)
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return [version, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.')
}

/** The secret back from its stored form; throws if it was tampered with or the key changed. */
export function decryptSecret(stored: string): string {
  const [storedVersion, iv, tag, ciphertext] = stored.split('.')
  if (storedVersion !== version || !iv || !tag || ciphertext === undefined) throw new Error('The stored secret is not in a known format.')
  const decipher = createDecipheriv(algorithm, encryptionKey(), Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
}
