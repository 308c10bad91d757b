import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'
import { ValidationError } from './errors.ts'

// List cursors are signed so that a client can hold one but not make one up. Each list's cursor
// module puts what it needs inside (the tenant, the filters, the position) and checks it.

// The key derived once per secret (a SHA-256 and a key import on every page's cursor was 2.5% of
// a cold list's CPU in a profile at 1,000,000 articles); derived again when the secret changes.
let derived: { secret: string; key: KeyObject } | undefined

function signingKey(): KeyObject {
  // An empty setting (CURSOR_SECRET= in an env file) is no secret: it counts as unset.
  const secret = process.env.CURSOR_SECRET || process.env.NEXTAUTH_SECRET || ''
  if (derived?.secret !== secret) {
    derived = { secret, key: createSecretKey(createHash('sha256').update(`newsroom list cursor\0${secret}`).digest()) }
  }
  return derived.key
}

function signature(payload: string): string {
  return createHmac('sha256', signingKey()).update(payload).digest('base64url').slice(0, 22)
}

/** A refusal of the `cursor` parameter (422). */
export function refuseCursor(message: string): never {
  throw new ValidationError([{ field: 'cursor', message }])
}

export function signCursor(payload: object): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${encoded}.${signature(encoded)}`
}

/** What a cursor carries, if this service signed it; otherwise a 422. */
export function readSignedCursor<Payload>(cursor: string): Payload {
  const made = 'cursor is not one this service made; use next_cursor from a list answer.'
  const [encoded, given, extra] = cursor.split('.')
  if (!encoded || !given || extra !== undefined) refuseCursor(made)
  const wanted = Buffer.from(signature(encoded))
  const got = Buffer.from(given)
  if (wanted.length !== got.length || !timingSafeEqual(wanted, got)) refuseCursor(made)
  try {
    return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Payload
  } catch {
    return refuseCursor(made)
  }
}

/** The filters of a list query in a stable form, to bind a cursor to them. */
export function filterFingerprint(filter: Record<string, unknown>): string {
  const stable = Object.keys(filter)
    .filter((key) => filter[key] !== undefined)
    .sort()
    .map((key) => [key, filter[key]])
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 16)
}
