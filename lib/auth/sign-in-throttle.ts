import { consumeKnownBrowserTry, consumeLockedAccountTry, consumeSignInAttempt, type SignInAttemptDecision, type SignInAttemptKind } from '../api/rate-limit.ts'
import { recordAudit } from '../audit.ts'
import { sendMail } from '../mail/send-mail.ts'
import { logger } from '../ops/logger.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { describeWait } from '../time/describe-wait.ts'
import { knownBrowserAccountSelect, knownBrowserNote } from './known-browser.ts'
import { hasSecondFactor, secondFactorsOf } from './second-factors.ts'

/**
 * Sign-in throttling that cannot be turned against a member (issue 46, point 3). The budgets
 * are rate-limit.ts's consumeSignInAttempt (per account, per account and address, per address;
 * failures only). What this adds:
 *
 * - A locked account (its budget spent from everywhere) refuses the addresses that failed for
 *   it, not the member: from an address that has not failed, a member with a second factor
 *   signs in as always (the password, then the factor: that second step is the extra
 *   challenge); a member without one may try a few times per window (RATE_LIMIT_SIGN_IN_WHILE_LOCKED)
 *   before the password is even checked, so many addresses cannot guess on.
 * - The refusal says the real wait (the deciding window's), in minutes.
 * - Every failure, lock and unlock is in the newsroom's audit log (user.sign_in_failed,
 *   user.sign_in_locked, user.sign_in_unlocked) and the server log as a structured security
 *   event (`security_event`); a refusal is a log line (it is not a try, and an attacker could
 *   otherwise fill the audit log with them).
 * - The member is e-mailed when the lock begins (someone is guessing their password), at most
 *   once a day for passwords and once an hour for second-factor codes (lockMailQuietMs).
 *
 * The client address is the caller's, as lib/security/client-address.ts finds it (TRUSTED_PROXY_HOPS).
 */

/** Which door the attempt came through, for the audit and the log. */
export type SignInStep = 'password' | 'second_factor' | 'reauthentication' | 'password_change'

/** `needsSecondFactor`: refused only because the account is locked and the member has no second factor to sign in with regardless. */
export type SignInRefusal = { retryAfterSeconds: number; message: string; needsSecondFactor: boolean }

export type SignInAttempt = {
  /** Null when the attempt may go on; otherwise what to tell the person (nothing was checked). */
  refusal: SignInRefusal | null
  /** Whether the account is locked against the addresses that failed (this one has not). */
  accountLocked: boolean
  /** The password or code was right: the attempt's slots are given back. */
  succeeded: () => Promise<void>
  /** The password or code was wrong: audited, logged, and the lock begins if this filled the budget. */
  failed: (reason: string) => Promise<void>
}

type Account = { id: string; tenantId: string; email: string; name: string; tenantName: string; signInLockedUntil: Date | null; passwordHash: string; credentialsChangedAt: Date | null }

/**
 * What says this browser signed in to the account before: the request's known-browser cookie
 * (known-browser.ts), or the live portal session of a member confirming it's them or changing
 * their password (a stronger proof than the cookie). At the second step the note only lets the
 * browser past the address's budget (the codes' own lock holds everywhere).
 */
export type KnownBrowserProof = { knownBrowserCookie?: string; sessionId?: string }

/**
 * `kind`: what is checked, the password, an authenticator code (whose failures lock everywhere) or a recovery code (see consumeSignInAttempt).
 * `from`: what says the browser signed in to the account before (KnownBrowserProof), if anything: such a browser is not held to the lock's few tries, but each proof has a few failures of its own while the account is locked (consumeKnownBrowserTry), so one read off a browser cannot be replayed from many addresses.
 */
export async function beginSignInAttempt(email: string, address: string, step: SignInStep, kind: SignInAttemptKind = 'password', from: KnownBrowserProof = {}): Promise<SignInAttempt> {
  const normalised = email.trim().toLowerCase()
  const account = await findAccount(normalised)
  // What says this browser signed in to the account before (checked against the password the account has now).
  const proof = account ? proofOf(from, account) : null
  const decision = await consumeSignInAttempt(normalised, address, kind, proof !== null)
  const shortAddress = address.slice(0, 64)

  // Its failures have left the window: the lock is over (recorded by the first attempt to find it so).
  if (account?.signInLockedUntil && account.signInLockedUntil.getTime() <= Date.now() && !decision.accountLocked) await unlock(account, shortAddress)

  if (!decision.allowed) return refused(decision.retryAfterSeconds, decision, account, shortAddress, step)

  let releaseProof = async () => {}
  if (proof && decision.addressExhausted) {
    // Others behind this address spent its budget; the browser that proved it signed in to the
    // account before tries on its proof's own few failures.
    const proofTry = await consumeKnownBrowserTry(normalised, proof)
    if (!proofTry.allowed) {
      await decision.succeeded()
      return refused(proofTry.retryAfterSeconds, decision, account, shortAddress, step)
    }
    releaseProof = proofTry.release
  } else if (kind === 'password' && decision.accountLocked && !(account && hasSecondFactor(await secondFactorsOf(account.id)))) {
    // Locked, from an address that has not failed, for a member without a second factor. A
    // browser that signed in to the account before tries on its proof's own few failures; any
    // other (or a proof that used them up) takes a try of the few the lock leaves. Either is
    // taken before the password is checked.
    const proofTry = proof ? await consumeKnownBrowserTry(normalised, proof) : null
    if (proofTry?.allowed) releaseProof = proofTry.release
    else {
      const locked = await consumeLockedAccountTry(normalised)
      if (!locked.allowed) {
        await decision.succeeded()
        return refused(Math.min(locked.retryAfterSeconds, decision.lockEndsInSeconds), decision, account, shortAddress, step, true)
      }
    }
  }

  return {
    refusal: null,
    accountLocked: decision.accountLocked,
    succeeded: async () => {
      await Promise.all([decision.succeeded(), releaseProof().catch(() => undefined)])
    },
    failed: async (reason) => {
      const event = { security_event: 'sign_in.failed', step, reason, user_id: account?.id ?? null, tenant_id: account?.tenantId ?? null, address: shortAddress, account_locked: decision.accountLocked }
      logger.warn(event, 'sign-in failed')
      if (!account) return
      await recordAudit(systemDb(), {
        tenantId: account.tenantId, actorId: null, action: 'user.sign_in_failed', targetType: 'user', targetId: account.id,
        metadata: { step, reason, address: shortAddress, accountLocked: decision.accountLocked },
      })
      if (decision.lastBeforeLock) await lock(account, decision, shortAddress, kind)
    },
  }
}

/** Records the failure, then hands back the error to throw: `throw await failedWith(attempt, 'wrong_code', error)`. */
export async function failedWith(attempt: SignInAttempt, reason: string, error: Error): Promise<Error> {
  await attempt.failed(reason)
  return error
}

async function findAccount(email: string): Promise<Account | null> {
  const user = await systemDb().user.findUnique({
    where: { email },
    select: { ...knownBrowserAccountSelect, tenantId: true, email: true, name: true, signInLockedUntil: true, tenant: { select: { name: true } } },
  })
  return user && { id: user.id, tenantId: user.tenantId, email: user.email, name: user.name, tenantName: user.tenant.name, signInLockedUntil: user.signInLockedUntil, passwordHash: user.passwordHash, credentialsChangedAt: user.credentialsChangedAt }
}

/** The key of the proof that this browser signed in to the account before, or null. */
function proofOf(from: KnownBrowserProof, account: Account): string | null {
  if (from.sessionId) return `session:${from.sessionId}`
  const note = knownBrowserNote(from.knownBrowserCookie, account)
  return note && `note:${note}`
}

function refused(retryAfterSeconds: number, decision: SignInAttemptDecision, account: Account | null, address: string, step: SignInStep, withoutSecondFactor = false): SignInAttempt {
  logger.warn(
    { security_event: 'sign_in.refused', step, policy: withoutSecondFactor ? 'sign-in-while-locked' : decision.policy, retry_after_seconds: retryAfterSeconds, user_id: account?.id ?? null, tenant_id: account?.tenantId ?? null, address, account_locked: decision.accountLocked },
    'sign-in refused: too many failures',
  )
  const wait = describeWait(retryAfterSeconds)
  const message = withoutSecondFactor
    ? `This account is locked after too many failed sign-ins from elsewhere. Try again in ${wait}. A browser you have signed in with before still signs in; with a second factor (Settings → Security) any browser at your own address does.`
    : `Too many failed sign-ins. Try again in ${wait}.`
  return { refusal: { retryAfterSeconds, message, needsSecondFactor: withoutSecondFactor }, accountLocked: decision.accountLocked, succeeded: async () => {}, failed: async () => {} }
}

async function lock(account: Account, decision: SignInAttemptDecision, address: string, kind: SignInAttemptKind): Promise<void> {
  // The lock lasts until the account's oldest failure leaves its window.
  const until = new Date(Date.now() + Math.max(1, decision.accountResetSeconds) * 1000)
  const of = kind === 'password' ? 'passwords' : 'second_factor_codes'
  await systemDb().user.update({ where: { id: account.id }, data: { signInLockedUntil: until } })
  logger.warn({ security_event: 'sign_in.locked', user_id: account.id, tenant_id: account.tenantId, address, failures: decision.limit, until: until.toISOString() }, 'account locked against the addresses that failed')
  // The lock is audited before the e-mail is sent: a mail server that hangs must not keep the
  // lock out of the audit for its timeout, nor out of it for good if the process stops (break53).
  // It says `mailed: false` until the e-mail has gone, so a send that fails, or a process stopped
  // mid-send, leaves the next lock to e-mail (break54).
  const mailing = !(await lockMailedRecently(account, of))
  const metadata = { address, failures: decision.limit, until: until.toISOString(), of, mailed: false }
  const entryId = await recordAudit(systemDb(), { tenantId: account.tenantId, actorId: null, action: 'user.sign_in_locked', targetType: 'user', targetId: account.id, metadata })
  if (mailing && (await mailLock(account, decision, address, kind, until))) {
    await systemDb().auditEntry.update({ where: { id: entryId }, data: { metadata: { ...metadata, mailed: true } } }).catch((error: unknown) => {
      logger.error({ security_event: 'sign_in.lock_mail_unrecorded', user_id: account.id, error: (error as Error).message }, 'the lock e-mail went, but its audit entry still says it did not')
    })
  }
}

/**
 * The member hears of a guesser once, not once a lock: one who keeps at it locks the account
 * again each window (15 minutes by default), which would be ~100 e-mails a day. Guessed
 * passwords are told once a day; wrong second-factor codes (someone has the password) once an
 * hour. Whether a lock was e-mailed is in its audit entry (`mailed`), which is what is asked.
 */
const lockMailQuietMs = { passwords: 24 * 3_600_000, second_factor_codes: 3_600_000 } as const

async function lockMailedRecently(account: Account, of: keyof typeof lockMailQuietMs): Promise<boolean> {
  const earlier = await systemDb().auditEntry.findFirst({
    where: {
      tenantId: account.tenantId, action: 'user.sign_in_locked', targetType: 'user', targetId: account.id,
      createdAt: { gte: new Date(Date.now() - lockMailQuietMs[of]) },
      AND: [{ metadata: { path: ['of'], equals: of } }, { metadata: { path: ['mailed'], equals: true } }],
    },
    select: { id: true },
  })
  return earlier !== null
}

/** Whether the e-mail went (a failure is logged, and the next lock tries again). */
async function mailLock(account: Account, decision: SignInAttemptDecision, address: string, kind: SignInAttemptKind, until: Date): Promise<boolean> {
  try {
    await sendMail({
      tenantId: account.tenantId,
      to: account.email,
      subject: 'Someone is trying to sign in to your newsroom account',
      text: (kind !== 'password'
        ? [
            `Hello ${account.name},`,
            '',
            `Someone entered your ${account.tenantName} password correctly and then ${decision.limit} wrong second-factor codes, the latest from ${address}. Nobody got in.`,
            `Sign-in to your account is paused until ${until.toISOString().slice(11, 16)} UTC.`,
            '',
            'Your authenticator app\'s codes are refused until then; a recovery code from your own address still signs you in.',
            'If this was not you, your password is known to someone: change it as soon as you can (Settings → Security) and tell your newsroom\'s admin.',
          ]
        : [
            `Hello ${account.name},`,
            '',
            `There were ${decision.limit} failed sign-ins to your ${account.tenantName} account in the last few minutes, the latest from ${address}.`,
            `Sign-ins from the addresses that failed are refused until ${until.toISOString().slice(11, 16)} UTC. Nobody got in.`,
            '',
            'You can still sign in from your usual place: your password and, if you have one, your second factor work as always.',
            'If this was not you, consider a longer password and a second factor (Settings → Security), and tell your newsroom\'s admin.',
          ]
      ).join('\n'),
    })
    return true
  } catch (error) {
    logger.error({ security_event: 'sign_in.lock_mail_failed', user_id: account.id, error: (error as Error).message }, 'could not e-mail the member about the lock')
    return false
  }
}

async function unlock(account: Account, address: string): Promise<void> {
  // Cleared by whichever attempt finds the lock over first; the conditional update records it once.
  const { count } = await systemDb().user.updateMany({ where: { id: account.id, signInLockedUntil: account.signInLockedUntil }, data: { signInLockedUntil: null } })
  if (count === 0) return
  await recordAudit(systemDb(), {
    tenantId: account.tenantId, actorId: null, action: 'user.sign_in_unlocked', targetType: 'user', targetId: account.id,
    metadata: { reason: 'failures_expired', lockedUntil: account.signInLockedUntil!.toISOString(), address },
  })
  logger.info({ security_event: 'sign_in.unlocked', user_id: account.id, tenant_id: account.tenantId, reason: 'failures_expired' }, 'account lock over')
}
