import { createHash, randomUUID } from 'node:crypto'
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
 * How long a claim lasts unless its instance renews it (every third of it, while the work
 * runs): an instance that crashed mid-request holds the key this long at most, after which a
 * retry takes the work over (idempotent-unit.ts says what it then finds committed).
 */
export const idempotencyLeaseMs = Number(process.env.IDEMPOTENCY_LEASE_MS ?? 5_000)

export type IdempotencyClaim = { claimed: true; claimId: string; recovered: unknown[] }

/**
 * Claims `key` for this request, or returns the answer of the request that claimed it first.
 * The claim is a row insert, so of two simultaneous requests exactly one runs; the other
 * waits for its answer. The claim is a lease: when its holder stopped renewing it (it
 * crashed), the waiting retry takes it over, with the results of whatever the first attempt
 * had committed (`recovered`). The same key with another body is refused (422).
 */
export async function claimIdempotencyKey(tokenId: string, key: string, fingerprint: string): Promise<{ replay: StoredResponse } | IdempotencyClaim> {
  const db = systemDb()
  const deadline = Date.now() + waitForFirstMs
  const claimId = randomUUID()
  for (;;) {
    // A new key, a key past its 24 hours (begun afresh), or a same-request claim whose lease
    // lapsed unanswered (taken over, keeping what the first attempt committed).
    const claimed = await db.$queryRaw<{ outcomes: unknown[] | null }[]>`
      INSERT INTO idempotency_records (token_id, key, request_hash, created_at, claim_id, lease_expires_at)
      VALUES (${tokenId}, ${key}, ${fingerprint}, now(), ${claimId}, now() + make_interval(secs => ${idempotencyLeaseMs / 1000}))
      ON CONFLICT (token_id, key) DO UPDATE
        SET claim_id = EXCLUDED.claim_id, lease_expires_at = EXCLUDED.lease_expires_at,
            request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at,
            committed_at = CASE WHEN idempotency_records.completed_at IS NULL AND idempotency_records.request_hash = EXCLUDED.request_hash THEN idempotency_records.committed_at END,
            outcomes = CASE WHEN idempotency_records.completed_at IS NULL AND idempotency_records.request_hash = EXCLUDED.request_hash THEN idempotency_records.outcomes END,
            completed_at = NULL, response_status = NULL, response_body = NULL, response_headers = NULL
        WHERE idempotency_records.created_at < now() - make_interval(secs => ${idempotencyWindowMs / 1000})
           OR (idempotency_records.completed_at IS NULL AND idempotency_records.request_hash = EXCLUDED.request_hash
               AND COALESCE(idempotency_records.lease_expires_at, idempotency_records.created_at + make_interval(secs => ${idempotencyLeaseMs / 1000})) < now())
      RETURNING outcomes`
    if (claimed.length === 1) return { claimed: true, claimId, recovered: claimed[0]!.outcomes ?? [] }

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

/** Keeps the claim's lease alive while the work runs; returns the function that stops it. */
export function renewIdempotencyLease(tokenId: string, key: string, claimId: string): () => void {
  const timer = setInterval(() => {
    void systemDb()
      .$executeRaw`UPDATE idempotency_records SET lease_expires_at = now() + make_interval(secs => ${idempotencyLeaseMs / 1000})
                   WHERE token_id = ${tokenId} AND key = ${key} AND claim_id = ${claimId} AND completed_at IS NULL`
      .catch(() => undefined) // the database away: the lease lapses, and the write's own check refuses a late commit
  }, idempotencyLeaseMs / 3)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * Stores the answer for replays. A server failure releases the key so a retry runs again,
 * unless part of the work had committed: then the lease is ended, and a retry recovers the
 * committed results rather than repeating them.
 */
export async function completeIdempotencyKey(tokenId: string, key: string, claimId: string, response: Response): Promise<void> {
  const db = systemDb()
  if (response.status >= 500) {
    await releaseIdempotencyKey(tokenId, key, claimId)
    return
  }
  const headers = Object.fromEntries(replayedHeaders.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : [])))
  const body = knownText(response) ?? (await response.clone().text())
  await db.$executeRaw`
    UPDATE idempotency_records
    SET response_status = ${response.status}, response_body = ${body}, response_headers = ${JSON.stringify(headers)}::jsonb, completed_at = now(), lease_expires_at = NULL
    WHERE token_id = ${tokenId} AND key = ${key} AND claim_id = ${claimId}`
}

export async function releaseIdempotencyKey(tokenId: string, key: string, claimId: string): Promise<void> {
  const db = systemDb()
  await db.$executeRaw`DELETE FROM idempotency_records WHERE token_id = ${tokenId} AND key = ${key} AND claim_id = ${claimId} AND committed_at IS NULL`.catch(() => undefined)
  await db.$executeRaw`UPDATE idempotency_records SET lease_expires_at = now() - interval '1 second' WHERE token_id = ${tokenId} AND key = ${key} AND claim_id = ${claimId}`.catch(() => undefined)
}

export function replayResponse(stored: StoredResponse): Response {
  const headers = new Headers(stored.headers)
  headers.set('Idempotent-Replayed', 'true')
  return stored.body ? textResponse(stored.body, { status: stored.status, headers }) : new Response(null, { status: stored.status, headers })
}
