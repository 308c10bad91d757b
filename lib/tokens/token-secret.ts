import { hash, randomBytes } from 'node:crypto'

export const tokenPrefix = 'nrs_'

/** A new bearer token: the `nrs_` prefix and 32 random bytes, base64url. */
export function generateToken(): string {
  return tokenPrefix + randomBytes(32).toString('base64url')
}

/**
 * SHA-256 is enough for a 256-bit random secret (no dictionary to guess from), and
 * lets a request find its token with one indexed lookup. Every /v1 request hashes its token (to
 * find it in the token cache): the one-shot crypto.hash makes no Hash object, and cost a third of
 * createHash().update().digest() (issue 50's profile of a cached GET).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex')
}

/** The part shown in lists: enough to tell keys apart, far too little to use. */
export function displayPrefix(token: string): string {
  return token.slice(0, tokenPrefix.length + 8)
}

export function looksLikeToken(value: string): boolean {
  return value.startsWith(tokenPrefix) && value.length >= tokenPrefix.length + 43
}
