import { claimIdempotencyKey, requestFingerprint } from '../../lib/api/idempotency.ts'
import { runAsIdempotentUnit } from '../../lib/events/idempotent-unit.ts'

/**
 * What an instance that crashed mid-request leaves of an Idempotency-Key: the key claimed by it
 * for `POST path` with `body`, and, if `work` is given, that work committed under the key (its
 * results recorded there) — and no answer. The retry is then the client's, through the API.
 */
export async function crashedClaim<T>(tokenId: string, key: string, path: string, body: unknown, work?: () => Promise<T>): Promise<T | undefined> {
  const claim = await claimIdempotencyKey(tokenId, key, requestFingerprint('POST', path, body))
  if (!('claimed' in claim)) throw new Error('expected a fresh claim')
  return work && runAsIdempotentUnit({ tokenId, key, claimId: claim.claimId, recovered: [], committed: 0 }, work)
}
