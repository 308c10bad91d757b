import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server'
import { recordAudit } from '../audit.ts'
import type { Prisma } from '../db/generated/client.ts'
import { isIP } from 'node:net'
import { ConflictError, DomainError, ForbiddenError, NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb } from '../tenancy/tenant-db.ts'
import type { Member } from './members.ts'
import { issueRecoveryCodesIfNone, prepareRecoveryCodes } from './recovery-codes.ts'
import { consumeNewFactorCodes } from '../api/rate-limit.ts'
import { challengeOfResponse, consumeChallenge, withChallenge, type ChallengePurpose } from './passkey-challenges.ts'
import { lockFactorsForLiveSession, type PortalSessionState } from './portal-sessions.ts'
import { assertRecentlyAuthenticated, markSessionReauthenticated } from './recent-authentication.ts'
import type { AuthenticationResponseInput, RegistrationResponseInput } from './security-schemas.ts'

type SignedInActor = Actor & { user: NonNullable<Actor['user']> }

/**
 * The relying party: the portal's configured public address (NEXTAUTH_URL), never the request's
 * Host header, so a request through another name cannot have a passkey signed for that name.
 */
export function relyingParty(): { id: string; origin: string; name: string } {
  const url = new URL(process.env.NEXTAUTH_URL ?? 'http://localhost:3000')
  return { id: url.hostname, origin: url.origin, name: 'Newsroom' }
}

/** Whether this portal can offer passkeys at all, and if not, why, in words an admin can act on. */
export type PasskeyAvailability = { available: true } | { available: false; reason: string }

/**
 * Browsers bind a passkey to a host name (the relying party id) and refuse one for an IP
 * address, and offer WebAuthn only on https (or http://localhost). Decided from NEXTAUTH_URL,
 * as relyingParty() is, so Security can say so before anyone presses "Add a passkey".
 */
export function passkeyAvailability(): PasskeyAvailability {
  const url = new URL(process.env.NEXTAUTH_URL ?? 'http://localhost:3000')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) !== 0) {
    return {
      available: false,
      reason: `Passkeys are not available here: this portal's address (NEXTAUTH_URL, ${url.origin}) is an IP address, and browsers only make passkeys for a host name. Ask your operator to serve the portal under a host name (e.g. https://cms.example.org) and set NEXTAUTH_URL to it.`,
    }
  }
  const local = host === 'localhost' || host.endsWith('.localhost')
  if (url.protocol !== 'https:' && !local) {
    return {
      available: false,
      reason: `Passkeys are not available here: browsers offer them only on https, and this portal's address (NEXTAUTH_URL, ${url.origin}) is http. Ask your operator to serve the portal over https.`,
    }
  }
  return { available: true }
}

/** Refuses passkey options the browser would refuse anyway, with the reason instead of the browser's vaguer one. */
function assertPasskeysAvailable(): void {
  const availability = passkeyAvailability()
  if (!availability.available) throw new ConflictError('precondition_failed', availability.reason)
}

/** A refused passkey: the same words whether the credential is unknown, another member's or forged. */
export class PasskeyRefusedError extends ForbiddenError {}

const notAccepted = 'That passkey was not accepted here. Use a passkey you registered for this account, or your password.'
/** WebAuthn's limit on a credential id (its credentialIdLength), in bytes. */
const maxCredentialIdBytes = 1023
const challengeGone = 'That passkey request expired or was already used. Try again.'

export type PasskeySummary = { id: string; name: string; deviceType: string; backedUp: boolean; createdAt: Date; lastUsedAt: Date | null }

/** The member's passkeys, newest first, for Settings → Security. */
export async function listPasskeys(actor: SignedInActor): Promise<PasskeySummary[]> {
  return tenantDb(actor.tenant.id).passkey.findMany({
    where: { userId: actor.user.id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, name: true, deviceType: true, backedUp: true, createdAt: true, lastUsedAt: true },
  })
}

/** Step one of adding a passkey (sudo): the options the browser's `navigator.credentials.create` takes. */
export async function passkeyRegistrationOptions(actor: SignedInActor, session: PortalSessionState | null): Promise<PublicKeyCredentialCreationOptionsJSON> {
  assertPasskeysAvailable()
  assertRecentlyAuthenticated(session)
  const user = await tenantDb(actor.tenant.id).user.findUniqueOrThrow({ where: { id: actor.user.id }, select: { email: true, name: true, passkeys: { select: { credentialId: true, transports: true } } } })
  const rp = relyingParty()
  return withChallenge('registration', actor.user.id, (challenge) => generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name,
    // The user handle the authenticator keeps with a discoverable credential: the member's id.
    userID: new TextEncoder().encode(actor.user.id),
    challenge,
    attestationType: 'none',
    // A passkey is a sign-in by itself, so it must be discoverable and must verify the person (PIN, biometrics).
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    excludeCredentials: user.passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as AuthenticatorTransportFuture[] })),
    supportedAlgorithmIDs: [-7, -257],
  }))
}

/**
 * Step two (sudo): the browser's answer, verified against the challenge step one stored; the
 * passkey is kept. A member without recovery codes (this is their first factor) gets ten in the
 * same transaction, returned once: a passkey is a second step of password sign-in from now on,
 * and a lost device must not mean an admin's reset.
 */
export async function registerPasskey(
  actor: SignedInActor,
  session: PortalSessionState | null,
  input: { name: string; response: RegistrationResponseInput },
): Promise<PasskeySummary & { recoveryCodes: string[] | null }> {
  assertRecentlyAuthenticated(session)
  const challenge = challengeOfResponse(input.response.response.clientDataJSON)
  if (!challenge || !(await consumeChallenge(challenge, 'registration', actor.user.id))) throw new PasskeyRefusedError(challengeGone)
  const rp = relyingParty()
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>
  try {
    verification = await verifyRegistrationResponse({
      response: input.response as Parameters<typeof verifyRegistrationResponse>[0]['response'],
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    })
  } catch (error) {
    throw new PasskeyRefusedError(`The passkey could not be registered: ${(error as Error).message}`)
  }
  if (!verification.verified) throw new PasskeyRefusedError('The passkey could not be registered: its answer did not verify.')
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo
  // WebAuthn caps a credential id at 1023 bytes; attestation "none" proves nothing about it, and a
  // longer one failed at the unique index's insert (its entries are capped near 2.7 kB) as a 500 (break55).
  if (Buffer.from(credential.id, 'base64url').length > maxCredentialIdBytes) throw new PasskeyRefusedError('The passkey could not be registered: its credential id is longer than WebAuthn allows.')
  const tdb = tenantDb(actor.tenant.id)
  // A first factor's codes, hashed before the lock (sec55). Only when the member has none now:
  // one who has codes keeps them, and rarely (their last code used meanwhile) they are hashed inside.
  // Within the member's budget for new factors' codes (break56): passkeys registered at once past
  // it hash nothing here; under the lock the first to find no codes hashes them, the rest find them.
  const needsCodes = (await tdb.recoveryCode.count({ where: { userId: actor.user.id, usedAt: null } })) === 0
  const prepared = needsCodes && (await consumeNewFactorCodes(actor.user.id)).allowed ? await prepareRecoveryCodes(actor.user.id) : null
  try {
    return await tdb.$transaction(async (tx) => {
      // Before the insert: a reset that runs meanwhile then either waits and deletes this passkey,
      // or finishes first, rather than missing it uncommitted (break55).
      // ...and if it finished first, it ended this session, which then adds no passkey (sec55).
      await lockFactorsForLiveSession(tx, actor.user.id, session, 'the passkey was not added')
      const passkey = await tx.passkey.create({
        data: {
          id: createId('pky'),
          tenantId: actor.tenant.id,
          userId: actor.user.id,
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey),
          counter: BigInt(credential.counter),
          transports: (credential.transports ?? []).slice(0, 10),
          deviceType: credentialDeviceType,
          backedUp: credentialBackedUp,
          name: input.name,
        },
        select: { id: true, name: true, deviceType: true, backedUp: true, createdAt: true, lastUsedAt: true },
      })
      const recoveryCodes = await issueRecoveryCodesIfNone(tx, actor, prepared)
      await recordAudit(tx, {
        tenantId: actor.tenant.id, actorId: actor.user.id, action: 'passkey.added', targetType: 'passkey', targetId: passkey.id,
        metadata: { name: passkey.name, deviceType: credentialDeviceType, recovery_codes: recoveryCodes?.length ?? 0 },
      })
      return { ...passkey, recoveryCodes }
    })
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw new PasskeyRefusedError('That passkey is already registered.')
    throw error
  }
}

/**
 * Renames one of the member's own passkeys (sudo). Another member's looks missing. A change of
 * the member's factors like the others (the names are what the owner reads to decide which to
 * remove): a session ended meanwhile renames nothing (sec57).
 */
export async function renamePasskey(actor: SignedInActor, session: PortalSessionState | null, passkeyId: string, name: string): Promise<PasskeySummary> {
  assertRecentlyAuthenticated(session)
  return tenantDb(actor.tenant.id).$transaction(async (tx) => {
    await lockFactorsForLiveSession(tx, actor.user.id, session, 'the passkey was not renamed')
    const before = await tx.passkey.findFirst({ where: { id: passkeyId, userId: actor.user.id }, select: { name: true } })
    if (!before) throw new NotFoundError('passkey', passkeyId)
    const passkey = await tx.passkey.update({ where: { id: passkeyId }, data: { name }, select: { id: true, name: true, deviceType: true, backedUp: true, createdAt: true, lastUsedAt: true } })
    await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: 'passkey.renamed', targetType: 'passkey', targetId: passkeyId, metadata: { from: before.name, to: name } })
    return passkey
  })
}

/** Removes one of the member's own passkeys (sudo): it signs in nowhere from now on. */
export async function removePasskey(actor: SignedInActor, session: PortalSessionState | null, passkeyId: string): Promise<void> {
  assertRecentlyAuthenticated(session)
  await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    await lockFactorsForLiveSession(tx, actor.user.id, session, 'the passkey was not removed')
    const passkey = await tx.passkey.findFirst({ where: { id: passkeyId, userId: actor.user.id }, select: { name: true } })
    if (!passkey) throw new NotFoundError('passkey', passkeyId)
    await tx.passkey.deleteMany({ where: { id: passkeyId, userId: actor.user.id } })
    // The last factor gone: recovery codes have nothing left to stand in for.
    const [passkeys, totp] = await Promise.all([tx.passkey.count({ where: { userId: actor.user.id } }), tx.totpFactor.count({ where: { userId: actor.user.id, confirmedAt: { not: null } } })])
    if (passkeys === 0 && totp === 0) await tx.recoveryCode.deleteMany({ where: { userId: actor.user.id } })
    await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: 'passkey.removed', targetType: 'passkey', targetId: passkeyId, metadata: { name: passkey.name } })
  })
}

/**
 * The options of a passkey sign-in. Without a member (the sign-in page) no credentials are
 * listed: the browser offers the discoverable passkeys it has for this site.
 */
export async function passkeySignInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return withChallenge('sign_in', null, (challenge) => generateAuthenticationOptions({ rpID: relyingParty().id, userVerification: 'required', challenge }))
}

/** The options of a passkey confirmation for a dangerous act: the member's own passkeys only. */
export async function passkeyReauthenticationOptions(actor: SignedInActor): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const passkeys = await tenantDb(actor.tenant.id).passkey.findMany({ where: { userId: actor.user.id }, select: { credentialId: true, transports: true } })
  if (passkeys.length === 0) throw new DomainError('not_found', 'You have no passkeys: confirm with your password instead.')
  return withChallenge('reauthentication', actor.user.id, (challenge) => generateAuthenticationOptions({
    rpID: relyingParty().id,
    userVerification: 'required',
    allowCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as AuthenticatorTransportFuture[] })),
    challenge,
  }))
}

/**
 * Verifies a passkey assertion: the challenge is taken once, the credential is looked up by its
 * id, the signature checked with user verification required, and the signature counter must
 * rise (a cloned authenticator replays an old one). `owner`, when given, is the only member the
 * passkey may belong to. Returns the passkey's member, who must be active.
 */
async function verifyAssertion(response: AuthenticationResponseInput, purpose: ChallengePurpose, owner: { userId: string; tenantId: string } | null): Promise<Member & { credentialsChangedAt: Date | null }> {
  const challenge = challengeOfResponse(response.response.clientDataJSON)
  if (!challenge || !(await consumeChallenge(challenge, purpose, purpose === 'sign_in' ? null : (owner?.userId ?? null)))) throw new PasskeyRefusedError(challengeGone)
  const passkey = await systemDb().passkey.findUnique({
    where: { credentialId: response.id },
    include: { user: { select: { id: true, email: true, name: true, role: true, tenantId: true, active: true, credentialsChangedAt: true, tenant: { select: { name: true } } } } },
  })
  if (!passkey || (owner && (passkey.userId !== owner.userId || passkey.tenantId !== owner.tenantId))) throw new PasskeyRefusedError(notAccepted)
  const rp = relyingParty()
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>
  try {
    verification = await verifyAuthenticationResponse({
      response: response as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: Number(passkey.counter), transports: passkey.transports as AuthenticatorTransportFuture[] },
      requireUserVerification: true,
    })
  } catch {
    // The library's reasons (a counter that did not rise, a bad signature, no user verification)
    // are logged by nobody on purpose: the person gets one answer, which is the truth for all.
    throw new PasskeyRefusedError(notAccepted)
  }
  if (!verification.verified) throw new PasskeyRefusedError(notAccepted)
  // Conditional on the counter read above, so two answers racing with one counter cannot both count.
  const { count } = await systemDb().passkey.updateMany({
    where: { id: passkey.id, counter: passkey.counter },
    data: { counter: BigInt(verification.authenticationInfo.newCounter), backedUp: verification.authenticationInfo.credentialBackedUp, lastUsedAt: new Date() },
  })
  if (count !== 1) throw new PasskeyRefusedError(notAccepted)
  if (!passkey.user.active) throw new PasskeyRefusedError('Your account is deactivated. Ask an admin of your newsroom.')
  const { user } = passkey
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: user.tenant.name, credentialsChangedAt: user.credentialsChangedAt }
}

/**
 * A sign-in with a passkey: alone (password-less), or as the second step of a sign-in whose
 * password step passed (`owner` is then that sign-in's member, and only their passkey counts).
 * With the member's credentialsChangedAt as read with the passkey, for the sign-in's provedSince
 * (proofBegan in portal-sessions.ts).
 */
export async function verifyPasskeySignIn(response: AuthenticationResponseInput, owner: { userId: string; tenantId: string } | null = null): Promise<Member & { credentialsChangedAt: Date | null }> {
  return verifyAssertion(response, 'sign_in', owner)
}

/** Sudo mode with a passkey instead of the password: the member's own passkey marks the session. */
export async function reauthenticateWithPasskey(actor: SignedInActor, session: PortalSessionState, response: AuthenticationResponseInput): Promise<Date> {
  await verifyAssertion(response, 'reauthentication', { userId: actor.user.id, tenantId: actor.tenant.id })
  return markSessionReauthenticated(session.id, actor.user.id)
}

/** How many passkeys the member has: the two-factor policy counts a passkey as a factor. */
export async function passkeyCountOf(userId: string): Promise<number> {
  return systemDb().passkey.count({ where: { userId } })
}

type PasskeyWriter = { passkey: { deleteMany(args: Prisma.PasskeyDeleteManyArgs): PromiseLike<{ count: number }> } }

/** An admin's reset of a member's factors removes their passkeys, inside the reset's transaction. */
export async function deletePasskeysOf(tx: PasskeyWriter, userId: string): Promise<number> {
  return (await tx.passkey.deleteMany({ where: { userId } })).count
}
