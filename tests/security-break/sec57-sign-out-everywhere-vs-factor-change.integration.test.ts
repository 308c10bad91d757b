import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { confirmTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { appSecret, memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'

// sec57: "sign out everywhere else" (endOtherPortalSessions) took no factor lock, which every
// factor change takes (lockFactorsForLiveSession). Did a factor added by a session that is ended
// in the same instant get lost, or outlive the end it raced? No (these passed without the lock):
// the factor change reads its session under the lock FOR SHARE, and the end is an UPDATE of that
// same row, so the two are ordered by the session's row itself, whichever reaches it first (the
// end now takes the lock too, for sign-ins: sec57-sign-in-across-sign-out-everywhere; the orders
// below then meet at the lock first, with the same outcomes):
// - the change read the session first: the end waits for the change to commit, then ends the
//   session (the factor was added by a session that was live; the end still ends it);
// - the end updated the row first: the change's read waits for the end to commit, finds the
//   session ended and adds nothing (409).
// Each order is made to happen here; then the two are run at once, many times, and every
// outcome must be one of the two.

type Member = Parameters<typeof confirmTotpEnrolment>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec57-sign-out-everywhere-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

/** A member of their own, an app key waiting for a code, and two live sessions: the owner's and another. */
async function newMember() {
  const { member, sessions } = await memberOfTheirOwn(newsroom, 's57e', { app: 'unconfirmed', sessions: { owner: 'Owner laptop', other: 'Other' } })
  return { member, ...sessions }
}

const confirmFrom = (member: Member, sessionId: string) => confirmTotpEnrolment(member, { id: sessionId, reauthenticatedAt: new Date() }, totpCode(appSecret, totpStep()))
const outcomeOf = (o: PromiseSettledResult<unknown>) => (o.status === 'fulfilled' ? 'ok' : ((o.reason as { code?: string }).code ?? (o.reason as Error).message))

/** What is left once both are done: the app confirmed or not, its live codes, the other session ended or not. */
async function stateOf(member: Member, other: string) {
  const factor = await db.totpFactor.findUniqueOrThrow({ where: { userId: member.user.id } })
  return {
    appConfirmed: factor.confirmedAt !== null,
    liveCodes: await db.recoveryCode.count({ where: { userId: member.user.id, usedAt: null } }),
    otherEnded: (await db.portalSession.findUniqueOrThrow({ where: { id: other } })).endedAt !== null,
  }
}

describe('"sign out everywhere else" racing a factor added by a session it ends', () => {
  it('the factor change read its session first: the end waits for it, then ends the session; the app is kept, nothing half done', async () => {
    const { member, owner, other } = await newMember()
    // The confirmation parked at the app's row, past its read of the session under the lock.
    const row = await holdLock('SELECT 1 FROM totp_factors WHERE user_id = $1 FOR UPDATE', [member.user.id])
    const confirm = confirmFrom(member, other)
    confirm.catch(() => undefined)
    await waitForLockWaiters(1)
    const end = endOtherPortalSessions(member, owner)
    end.catch(() => undefined)
    // The end waits too: for the session's row, which the confirmation holds FOR SHARE (or the factor lock it holds).
    await waitForLockWaiters(2)
    expect(await db.portalSession.findUniqueOrThrow({ where: { id: other }, select: { endedAt: true } })).toEqual({ endedAt: null })
    await row.release()
    const [confirmed, ended] = await Promise.allSettled([confirm, end])
    expect([outcomeOf(confirmed), ended.status === 'fulfilled' ? ended.value : outcomeOf(ended)]).toEqual(['ok', 1])
    expect(await stateOf(member, other)).toEqual({ appConfirmed: true, liveCodes: 10, otherEnded: true })
  }, 30_000)

  it('the end updated the session first: the factor change waits for it to commit, then adds nothing', async () => {
    const { member, owner, other } = await newMember()
    // The end parked at the member's row (credentialsChangedAt), past its update of the sessions.
    const userRow = await holdLock('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [member.user.id])
    const end = endOtherPortalSessions(member, owner)
    end.catch(() => undefined)
    await waitForLockWaiters(1)
    const confirm = confirmFrom(member, other)
    confirm.catch(() => undefined)
    // The confirmation waits at the session's row the end updated (or at the factor lock the end holds).
    await waitForLockWaiters(2)
    await userRow.release()
    const [ended, confirmed] = await Promise.allSettled([end, confirm])
    expect([ended.status === 'fulfilled' ? ended.value : outcomeOf(ended), outcomeOf(confirmed)]).toEqual([1, 'precondition_failed'])
    expect(await stateOf(member, other)).toEqual({ appConfirmed: false, liveCodes: 0, otherEnded: true })
  }, 30_000)

  it('run at once, eight times: every outcome is one of the two orders (added then ended, or ended and refused)', async () => {
    const seen: string[] = []
    for (let round = 0; round < 8; round++) {
      const { member, owner, other } = await newMember()
      const [confirmed, ended] = await Promise.allSettled([confirmFrom(member, other), endOtherPortalSessions(member, owner)])
      const outcome = { confirm: outcomeOf(confirmed), ended: ended.status === 'fulfilled' ? ended.value : outcomeOf(ended), ...(await stateOf(member, other)) }
      expect([
        { confirm: 'ok', ended: 1, appConfirmed: true, liveCodes: 10, otherEnded: true },
        { confirm: 'precondition_failed', ended: 1, appConfirmed: false, liveCodes: 0, otherEnded: true },
      ]).toContainEqual(outcome)
      seen.push(outcome.confirm)
    }
    // Which order won is up to the machine; what matters above is that nothing else happened.
    expect(seen).toHaveLength(8)
  }, 120_000)
})
