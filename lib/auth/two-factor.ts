import QRCode from 'qrcode'
import { beginSignInAttempt, failedWith } from './sign-in-throttle.ts'
import { consumeNewFactorCodes, consumeRecoveryCodeRegeneration } from '../api/rate-limit.ts'
import { recordAudit } from '../audit.ts'
import type { Prisma } from '../db/generated/client.ts'
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../errors.ts'
import { logger } from '../ops/logger.ts'
import { decryptSecret, encryptSecret } from '../security/secret-box.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb, type TenantDb } from '../tenancy/tenant-db.ts'
import { deletePasskeysOf } from './passkeys.ts'
import { assertMemberCan } from './permissions.ts'
import { endMemberSessions, lockFactorsForLiveSession, lockMemberToEndSessions, type PortalSessionState } from './portal-sessions.ts'
import { assertRecentlyAuthenticated, markSessionReauthenticated } from './recent-authentication.ts'
import { hashRecoveryCode, legacyRecoveryCodeHash, normaliseRecoveryCode, prepareRecoveryCodes, replaceRecoveryCodes, type RecoveryCodeWriter } from './recovery-codes.ts'
import { generateTotpSecret, matchTotp, totpUri } from './totp.ts'

type Member = Actor & { user: NonNullable<Actor['user']> }


/** What a person is told of a TOTP code that was accepted once already. */
export const totpAlreadyUsed = 'That code was already used. Wait for your app to show a new one, then enter it.'

/** What enrolment shows: the QR code (an SVG data URL drawn here, never fetched) and the same key in text. */
export type TotpEnrolment = { secret: string; uri: string; qrCode: string }

/**
 * Step one of enrolment: a new key, kept unconfirmed (it is no factor until a code proves the
 * app holds it). Starting again replaces an unconfirmed key; a confirmed one must be removed
 * first, and there is no other way to replace it: a tab left on "Set up" must never take away
 * the app another tab just confirmed. Under the member's factor lock, which every confirmation
 * takes too, and only a key still unconfirmed at the write is replaced (sec55: the check, then
 * an unconditional upsert, un-confirmed an app confirmed in between). The session asking is read
 * again under that lock, as for every factor change: one that "sign out everywhere else" or an
 * admin's reset ended while the request waited stores no key (sec57).
 */
export async function startTotpEnrolment(member: Member, session: PortalSessionState | null, account: string): Promise<TotpEnrolment> {
  const secret = generateTotpSecret()
  const secretEncrypted = encryptSecret(secret)
  const alreadySetUp = () => new ConflictError('precondition_failed', 'An authenticator app is already set up. Remove it first to set up another.')
  await tenantDb(member.tenant.id).$transaction(async (tx) => {
    await lockFactorsForLiveSession(tx, member.user.id, session, 'no authenticator app set-up was started')
    const { count } = await tx.totpFactor.updateMany({ where: { userId: member.user.id, confirmedAt: null }, data: { secretEncrypted, lastUsedStep: null, createdAt: new Date() } })
    if (count > 0) return
    if (await tx.totpFactor.findUnique({ where: { userId: member.user.id }, select: { userId: true } })) throw alreadySetUp()
    await tx.totpFactor.create({ data: { userId: member.user.id, tenantId: member.tenant.id, secretEncrypted } })
  })
  const uri = totpUri(secret, account, member.tenant.name)
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return { secret, uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` }
}

/**
 * Step two: a code from the app confirms the key; the ten recovery codes are made and returned,
 * once. Only the key the code was checked against is confirmed: if another tab started again
 * meanwhile, its new key (which the phone may never have scanned) stays unconfirmed and this
 * tab is told to scan the newest QR code.
 */
export async function confirmTotpEnrolment(member: Member, session: PortalSessionState | null, code: string): Promise<{ recoveryCodes: string[] }> {
  const tdb = tenantDb(member.tenant.id)
  const factor = await tdb.totpFactor.findUnique({ where: { userId: member.user.id } })
  if (!factor) throw new ConflictError('precondition_failed', 'Start the set-up again: no authenticator key is waiting for a code.')
  if (factor.confirmedAt) throw new ConflictError('precondition_failed', 'An authenticator app is already set up.')
  let secret: string
  try {
    secret = decryptSecret(factor.secretEncrypted)
  } catch (error) {
    // Stored before the operator changed WEBHOOK_SECRET_KEY (as checkTotp copes): a new start stores one under the new key (break55).
    logger.warn({ user: member.user.id, error: (error as Error).message }, 'an unconfirmed TOTP key cannot be decrypted; the member is asked to start the set-up again')
    throw new ConflictError('precondition_failed', 'Start the set-up again: the key waiting for a code can no longer be read here. Scan the new QR code.')
  }
  const step = matchTotp(secret, code)
  if (step === null) throw new ValidationError([{ field: 'code', message: 'That code does not match. Enter the 6 digits your app shows now.' }], 'That code does not match.')
  // Bounded per member before the ten scrypts, as regenerating is: the member knows the key, so one
  // valid code sent many times at once (or start, confirm, remove in a loop) hashed ten codes a
  // request, and only one request can confirm (break56).
  const allowance = await consumeNewFactorCodes(member.user.id)
  if (!allowance.allowed) throw new DomainError('rate_limited', `You confirmed an authenticator app a moment ago. To confirm one again, wait ${allowance.retryAfterSeconds} seconds and enter the code your app shows then.`)
  // Hashed before the lock: the codes depend on nothing it guards (sec55).
  const prepared = await prepareRecoveryCodes(member.user.id)
  const recoveryCodes = await tdb.$transaction(async (tx) => {
    // The lock before the factor's row: a reset or a removal takes them in that order (break55).
    await lockFactorsForLiveSession(tx, member.user.id, session, 'the authenticator app was not set up')
    const { count } = await tx.totpFactor.updateMany({ where: { userId: member.user.id, confirmedAt: null, secretEncrypted: factor.secretEncrypted }, data: { confirmedAt: new Date(), lastUsedStep: BigInt(step) } })
    if (count === 0) {
      const now = await tx.totpFactor.findUnique({ where: { userId: member.user.id }, select: { confirmedAt: true } })
      if (!now) throw new ConflictError('precondition_failed', 'Start the set-up again: no authenticator key is waiting for a code.')
      if (now.confirmedAt) throw new ConflictError('precondition_failed', 'An authenticator app is already set up.')
      throw new ConflictError('precondition_failed', 'The set-up was started again (in another tab or window): scan the newest QR code, or start again.')
    }
    const codes = await replaceRecoveryCodes(tx, member, prepared)
    await recordAudit(tx, { tenantId: member.tenant.id, actorId: member.user.id, action: 'two_factor.totp_enrolled', targetType: 'user', targetId: member.user.id, metadata: { recovery_codes: codes.length } })
    return codes
  })
  // Proving the app is as good as the password for the next few minutes' dangerous acts.
  if (session) await markSessionReauthenticated(session.id, member.user.id)
  return { recoveryCodes }
}

/** Removes the member's authenticator app and recovery codes (sudo mode). */
export async function removeTotp(member: Member, session: PortalSessionState | null): Promise<void> {
  assertRecentlyAuthenticated(session)
  await tenantDb(member.tenant.id).$transaction(async (tx) => {
    await lockFactorsForLiveSession(tx, member.user.id, session, 'the authenticator app was not removed')
    const { count } = await tx.totpFactor.deleteMany({ where: { userId: member.user.id } })
    if (count === 0) throw new NotFoundError('authenticator app', member.user.id)
    // The codes stand in for every factor: they stay while a passkey remains.
    if ((await tx.passkey.count({ where: { userId: member.user.id } })) === 0) await tx.recoveryCode.deleteMany({ where: { userId: member.user.id } })
    await recordAudit(tx, { tenantId: member.tenant.id, actorId: member.user.id, action: 'two_factor.totp_removed', targetType: 'user', targetId: member.user.id })
  })
}

/** A confirmed authenticator app or a passkey: what recovery codes stand in for. */
async function hasSecondFactor(client: Pick<TenantDb, 'totpFactor' | 'passkey'>, userId: string): Promise<boolean> {
  const [totp, passkeys] = await Promise.all([
    client.totpFactor.count({ where: { userId, confirmedAt: { not: null } } }),
    client.passkey.count({ where: { userId } }),
  ])
  return totp > 0 || passkeys > 0
}

const noFactorForCodes = () => new ConflictError('precondition_failed', 'Set up an authenticator app or a passkey first: recovery codes stand in for it.')

/** Ten new recovery codes in place of the old ones, shown once (sudo mode); for any factor, passkeys included. */
export async function regenerateRecoveryCodes(member: Member, session: PortalSessionState | null): Promise<{ recoveryCodes: string[] }> {
  assertRecentlyAuthenticated(session)
  // A member with no factor is refused before ten scrypts are spent on codes that cannot be issued;
  // the count is taken again under the lock, where it decides.
  if (!(await hasSecondFactor(tenantDb(member.tenant.id), member.user.id))) throw noFactorForCodes()
  // Bounded per member before the hashing: ten scrypts a request, and nothing else limits a session's requests (break55).
  const allowance = await consumeRecoveryCodeRegeneration(member.user.id)
  if (!allowance.allowed) throw new DomainError('rate_limited', `You made new recovery codes a moment ago: the last set shown is the one that works. To make another, wait ${allowance.retryAfterSeconds} seconds.`)
  // Hashed before the lock (sec55); if the transaction refuses (no factor left), they were never shown.
  const prepared = await prepareRecoveryCodes(member.user.id)
  return tenantDb(member.tenant.id).$transaction(async (tx) => {
    // Before the factors are counted: a tab removing the last one waits, or finds these codes.
    await lockFactorsForLiveSession(tx, member.user.id, session, 'no new recovery codes were made')
    if (!(await hasSecondFactor(tx, member.user.id))) throw noFactorForCodes()
    const recoveryCodes = await replaceRecoveryCodes(tx, member, prepared)
    await recordAudit(tx, { tenantId: member.tenant.id, actorId: member.user.id, action: 'two_factor.recovery_codes_regenerated', targetType: 'user', targetId: member.user.id })
    return { recoveryCodes }
  })
}

/** What a TOTP code was: accepted now, one accepted before (a replay, or typed twice), or no code of this key. */
export type TotpCheck = 'accepted' | 'reused' | 'wrong'

/**
 * Checks a TOTP code against the member's confirmed key and, if it matches, records its step
 * so that code (and any older) is never accepted again. The step is written only if still
 * newer than the last one, so two requests racing with the same code cannot both pass. A code
 * that matches a step already used is told apart, so the person hears "already used, wait for
 * the next one" rather than "not right" about the code their app shows.
 */
export async function checkTotp(userId: string, code: string): Promise<TotpCheck> {
  const factor = await systemDb().totpFactor.findUnique({ where: { userId } })
  if (!factor?.confirmedAt) return 'wrong'
  let secret: string
  try {
    secret = decryptSecret(factor.secretEncrypted)
  } catch (error) {
    // The operator changed WEBHOOK_SECRET_KEY: no code can match; recovery codes or an admin's reset still work.
    logger.error({ user: userId, error: (error as Error).message }, 'a TOTP key cannot be decrypted; the member needs a recovery code or an admin reset of their factors')
    return 'wrong'
  }
  const lastUsedStep = factor.lastUsedStep === null ? null : Number(factor.lastUsedStep)
  const step = matchTotp(secret, code, { lastUsedStep })
  if (step === null) return lastUsedStep !== null && matchTotp(secret, code) !== null ? 'reused' : 'wrong'
  const { count } = await systemDb().totpFactor.updateMany({
    where: { userId, confirmedAt: { not: null }, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: BigInt(step) } }] },
    data: { lastUsedStep: BigInt(step) },
  })
  // Lost the race to a request with the same (or a newer) code: that one used it.
  return count === 1 ? 'accepted' : 'reused'
}

export async function verifyTotp(userId: string, code: string): Promise<boolean> {
  return (await checkTotp(userId, code)) === 'accepted'
}

/** Uses up one of the member's recovery codes, if the code is one of theirs and unused; audited with how many are left. */
export async function redeemRecoveryCode(user: { id: string; tenantId: string }, code: string, address: string): Promise<boolean> {
  if (normaliseRecoveryCode(code).length !== 10) return false
  // Hashed before the transaction opens: scrypt's tens of milliseconds should not hold a connection.
  const codeHashes = [await hashRecoveryCode(code, user.id), legacyRecoveryCodeHash(code)]
  return systemDb().$transaction(async (tx) => {
    const { count } = await tx.recoveryCode.updateMany({ where: { userId: user.id, codeHash: { in: codeHashes }, usedAt: null }, data: { usedAt: new Date() } })
    if (count === 0) return false
    const left = await tx.recoveryCode.count({ where: { userId: user.id, usedAt: null } })
    await recordAudit(tx, { tenantId: user.tenantId, actorId: user.id, action: 'two_factor.recovery_code_used', targetType: 'user', targetId: user.id, metadata: { left, address: address.slice(0, 64) } })
    return true
  })
}

/** The second step of a sign-in: a TOTP code, or else one of the recovery codes (used once); 'reused' for a TOTP code accepted before. */
/** Whether the second step's code is an authenticator's (6 digits, a space allowed) rather than a recovery code. */
export function isTotpShaped(code: string): boolean {
  return /^\d{3}\s?\d{3}$/.test(code.trim())
}

export async function verifySecondFactorCode(user: { id: string; tenantId: string }, code: string, address: string): Promise<'totp' | 'recovery_code' | 'reused' | null> {
  const trimmed = code.trim()
  if (isTotpShaped(trimmed)) {
    const check = await checkTotp(user.id, trimmed)
    return check === 'accepted' ? 'totp' : check === 'reused' ? 'reused' : null
  }
  return (await redeemRecoveryCode(user, trimmed, address)) ? 'recovery_code' : null
}

/**
 * Sudo mode with the authenticator app instead of the password: the same limits as the
 * password (a session left open cannot be used to guess codes), then the session is marked.
 */
export async function reauthenticateWithTotp(member: Member, session: PortalSessionState, code: string, address: string): Promise<Date> {
  const user = await systemDb().user.findUnique({ where: { id: member.user.id }, select: { email: true, active: true } })
  if (!user?.active) throw new DomainError('forbidden', 'Your account is deactivated.')
  const attempt = await beginSignInAttempt(user.email, address, 'reauthentication', 'code', { sessionId: session.id })
  if (attempt.refusal) throw new DomainError('rate_limited', attempt.refusal.message)
  const check = await checkTotp(member.user.id, code)
  if (check === 'reused') throw await failedWith(attempt, 'reused_code', new ValidationError([{ field: 'code', message: totpAlreadyUsed }], totpAlreadyUsed))
  if (check !== 'accepted') throw await failedWith(attempt, 'wrong_code', new ValidationError([{ field: 'code', message: 'That code is not right. Enter the code your app shows now.' }], 'That code is not right.'))
  await attempt.succeeded()
  return markSessionReauthenticated(session.id, member.user.id)
}

type FactorResetWriter = RecoveryCodeWriter & {
  totpFactor: { deleteMany(args: Prisma.TotpFactorDeleteManyArgs): PromiseLike<{ count: number }> }
  passkey: { deleteMany(args: Prisma.PasskeyDeleteManyArgs): PromiseLike<{ count: number }> }
  pendingSignIn: { deleteMany(args: Prisma.PendingSignInDeleteManyArgs): PromiseLike<unknown> }
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>
  portalSession: { updateMany(args: Prisma.PortalSessionUpdateManyArgs): PromiseLike<{ count: number }> }
  auditEntry: { create(args: { data: Prisma.AuditEntryUncheckedCreateInput }): PromiseLike<unknown> }
}

/**
 * An admin's reset of a member's second factors, inside the caller's transaction: every
 * factor and recovery code goes, any half-done sign-in with them dies, and all the member's
 * sessions end at their next request (whoever held the lost phone may hold a session too).
 * The member signs in with the password and sets a factor up again. One kind per line, so
 * passkeys are one more deleteMany here.
 */
export async function resetSecondFactors(tx: FactorResetWriter, actor: Member, userId: string): Promise<{ endedSessions: number; removed: string[] }> {
  // First in the transaction: the member's sign-ins and every factor change queue behind it.
  const lock = await lockMemberToEndSessions(tx, userId)
  const removed: string[] = []
  if ((await tx.totpFactor.deleteMany({ where: { userId } })).count > 0) removed.push('totp')
  if ((await deletePasskeysOf(tx, userId)) > 0) removed.push('passkeys')
  await tx.recoveryCode.deleteMany({ where: { userId } })
  await tx.pendingSignIn.deleteMany({ where: { userId } })
  // ...and its browsers' known-browser notes (lib/auth/known-browser.ts) stop counting (endMemberSessions).
  const endedSessions = await endMemberSessions(tx, lock, 'factors_reset')
  await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: 'user.factors_reset', targetType: 'user', targetId: userId, metadata: { removed, ended_sessions: endedSessions } })
  return { endedSessions, removed }
}

/** Settings → Members: "Reset two-factor" (admins, sudo mode). */
export async function resetMemberSecondFactors(actor: Actor, session: PortalSessionState | null, userId: string): Promise<{ endedSessions: number; removed: string[] }> {
  assertMemberCan(actor, 'admin')
  assertRecentlyAuthenticated(session)
  const tdb = tenantDb(actor.tenant.id)
  return tdb.$transaction(async (tx) => {
    const member = await tx.user.findUnique({ where: { id: userId }, select: { id: true } })
    if (!member) throw new NotFoundError('user', userId)
    return resetSecondFactors(tx, actor, userId)
  })
}
