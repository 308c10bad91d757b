import { createHash } from 'node:crypto'
import { DomainError } from '../errors.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { knownText, textResponse } from './text-response.ts'

/** How long a key is remembered: a retry within this time replays the first answer. */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000
const waitForFirstMs = 10_000
const pollEveryMs = 50
const maxKeyLength = 255

export type StoredResponse = { status: number; body: string; headers: Record<string, string> }

// Headers that describe the stored answer itself; rate-limit and request-id headers belong
// to the request that replays it, and are set fresh.
const replayedHeaders = ['content-type', 'location', 'etag']

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex')
}

export function validateIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > maxKeyLength || !/^[\x21-\x7e]+$/.test(key)) {
    throw new DomainError('validation_failed', `Idempotency-Key must be 1 to ${maxKeyLength} visible ASCII characters (a UUID is a good choice).`)
  }
}

/**
 * Claims `key` for this request, or returns the answer of the request that claimed it first.
 * The claim is a row insert, so of two simultaneous requests exactly one runs; the other
 * waits for its answer. The same key with another body is refused (422).
 */
export async function claimIdempotencyKey(tokenId: string, key: string, fingerprint: string): Promise<{ replay: StoredResponse } | { claimed: true }> {
  const db = systemDb()
  const deadline = Date.now() + waitForFirstMs
  for (;;) {
    const inserted = await db.$executeRaw`
      INSERT INTO idempotency_records (token_id, key, request_hash, created_at)
      VALUES (${tokenId}, ${key}, ${fingerprint}, now())
      ON CONFLICT (token_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, created_at = now(), completed_at = NULL,
            response_status = NULL, response_body = NULL, response_headers = NULL
        WHERE idempotency_records.created_at < now() - make_interval(secs => ${idempotencyWindowMs / 1000})`
    if (inserted === 1) return { claimed: true }

    const record = await db.idempotencyRecord.findUnique({ where: { tokenId_key: { tokenId, key } } })
    if (!record) continue // released by a failed first request a moment ago: claim it again
    if (record.requestHash !== fingerprint) {
      throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key for a new request.')
    }
    if (record.completedAt && record.responseStatus !== null) {
      return { replay: { status: record.responseStatus, body: record.responseBody ?? '', headers: (record.responseHeaders ?? {}) as Record<string, string> } }
    }
    if (Date.now() > deadline) {
      throw new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry in a moment to get its answer.')
    }
    await new Promise((resolve) => setTimeout(resolve, pollEveryMs))
  }
}

/** Stores the answer for replays; a server failure releases the key so a retry runs again. */
export async function completeIdempotencyKey(tokenId: string, key: string, response: Response): Promise<void> {
  const db = systemDb()
  if (response.status >= 500) {
    await db.idempotencyRecord.deleteMany({ where: { tokenId, key } })
    return
  }
  const headers = Object.fromEntries(replayedHeaders.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : [])))
  await db.idempotencyRecord.update({
    where: { tokenId_key: { tokenId, key } },
    data: { responseStatus: response.status, responseBody: knownText(response) ?? (await response.clone().text()), responseHeaders: headers, completedAt: new Date() },
  })
}

export async function releaseIdempotencyKey(tokenId: string, key: string): Promise<void> {
  await systemDb().idempotencyRecord.deleteMany({ where: { tokenId, key } }).catch(() => undefined)
}

export function replayResponse(stored: StoredResponse): Response {
  const headers = new Headers(stored.headers)
  headers.set('Idempotent-Replayed', 'true')
  return stored.body ? textResponse(stored.body, { status: stored.status, headers }) : new Response(null, { status: stored.status, headers })
}
