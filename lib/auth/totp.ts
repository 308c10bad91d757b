import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

// RFC 6238 with the parameters every authenticator app assumes: HMAC-SHA-1, 6 digits, 30 s.
// Small enough to own (RFC 4226's dynamic truncation is six lines), so no dependency decides it.
const stepSeconds = 30
const digits = 6
/** Steps either side of now a code is still accepted for: a phone clock 30 s off still works. */
export const driftSteps = 1

const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** A new 160-bit key (RFC 4226's recommended length), base32 as apps and otpauth:// URIs take it. */
export function generateTotpSecret(): string {
  return toBase32(randomBytes(20))
}

export function toBase32(bytes: Buffer): string {
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += base32Alphabet[(value << (5 - bits)) & 31]
  return out
}

export function fromBase32(text: string): Buffer {
  const clean = text.replace(/[\s=-]/g, '').toUpperCase()
  let bits = 0
  let value = 0
  const out: number[] = []
  for (const char of clean) {
    const index = base32Alphabet.indexOf(char)
    if (index < 0) throw new Error('Not a base32 key.')
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** The 30-second step a moment falls in (RFC 6238's T). */
export function totpStep(at = Date.now()): number {
  return Math.floor(at / 1000 / stepSeconds)
}

/** The code for one step (RFC 4226 HOTP of the step counter). */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const hmac = createHmac('sha1', fromBase32(secret)).update(counter).digest()
  const offset = hmac[hmac.length - 1]! & 0x0f
  const binary = (hmac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits
  return binary.toString().padStart(digits, '0')
}

/**
 * The step a code matches within the drift window, or null. Steps at or before `lastUsedStep`
 * are not tried: a code once accepted (or any older one) never works again (replay).
 */
export function matchTotp(secret: string, code: string, options: { at?: number; lastUsedStep?: number | null } = {}): number | null {
  const candidate = code.replace(/\s/g, '')
  if (!/^\d{6}$/.test(candidate)) return null
  const now = totpStep(options.at)
  let matched: number | null = null
  for (let step = now - driftSteps; step <= now + driftSteps; step++) {
    if (options.lastUsedStep != null && step <= options.lastUsedStep) continue
    // Every step is compared, in constant time, so the time taken says nothing about which matched.
    if (timingSafeEqual(Buffer.from(totpCode(secret, step)), Buffer.from(candidate)) && matched === null) matched = step
  }
  return matched
}

/** What authenticator apps scan: the otpauth:// URI (Google's Key Uri Format). */
export function totpUri(secret: string, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`)
  const params = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(digits), period: String(stepSeconds) })
  return `otpauth://totp/${label}?${params.toString()}`
}
