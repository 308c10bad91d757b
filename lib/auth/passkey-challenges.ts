import { randomBytes } from 'node:crypto'
import { systemDb } from '../tenancy/tenant-db.ts'

/** What a challenge was handed out for: one purpose's challenge never passes for another's. */
export type ChallengePurpose = 'registration' | 'sign_in' | 'reauthentication'

/** How long the browser has to answer a challenge: WebAuthn's own timeout is shorter (60 s by default). */
export const challengeLifetimeMs = 5 * 60 * 1000

/**
 * Hands out a challenge: `build` makes the browser's options around fresh random bytes, and the
 * challenge as the options carry it (base64url) is stored in PostgreSQL (not Redis, so the
 * embedded store has passkeys too). Expired ones are swept here: one indexed delete per new
 * challenge keeps the table to the few minutes' worth that can still be answered.
 */
export async function withChallenge<T extends { challenge: string }>(purpose: ChallengePurpose, userId: string | null, build: (challenge: Uint8Array<ArrayBuffer>) => Promise<T>, now = new Date()): Promise<T> {
  const options = await build(new Uint8Array(randomBytes(32)))
  await systemDb().webauthnChallenge.deleteMany({ where: { expiresAt: { lte: now } } })
  await systemDb().webauthnChallenge.create({ data: { challenge: options.challenge, purpose, userId, expiresAt: new Date(now.getTime() + challengeLifetimeMs) } })
  return options
}

/**
 * Takes the challenge a browser's answer signed, once: the delete is the check, so two answers
 * to one challenge (a replay, a double submit) cannot both pass. True only for an unexpired
 * challenge handed out for this purpose and member.
 */
export async function consumeChallenge(challenge: string, purpose: ChallengePurpose, userId: string | null, now = new Date()): Promise<boolean> {
  const { count } = await systemDb().webauthnChallenge.deleteMany({ where: { challenge, purpose, userId, expiresAt: { gt: now } } })
  return count === 1
}

/** The challenge a WebAuthn answer carries in its client data, or null if it carries none readable. */
export function challengeOfResponse(clientDataJSON: unknown): string | null {
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 8192) return null
  try {
    const clientData = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }
    return typeof clientData.challenge === 'string' && clientData.challenge.length > 0 ? clientData.challenge : null
  } catch {
    return null
  }
}
