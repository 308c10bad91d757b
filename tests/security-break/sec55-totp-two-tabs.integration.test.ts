import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { confirmTotpEnrolment, startTotpEnrolment, verifyTotp } from '../../lib/auth/two-factor.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'

// sec55: setting up an authenticator app with two tabs open. Starting an enrolment read the
// member's app, then upserted a new key (confirmedAt: null) without any lock: a tab that
// confirmed its app in between lost it (un-confirmed, another key in its place). And a tab
// confirming a code of the key it showed confirmed whatever key was waiting by then, so a new
// key another tab had just started (and the phone never scanned) became the member's app.
// What a member expects: a confirmed app stays until they remove it; a confirmation only ever
// confirms the key whose QR code that tab showed.

let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec55-totp-two-tabs-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const newMember = async () => (await memberOfTheirOwn(newsroom, 's55t')).member

const why = (o: PromiseSettledResult<unknown>) => (o.status === 'rejected' ? `${(o.reason as { code?: string }).code ?? ''} ${(o.reason as Error).message}`.slice(0, 160) : 'ok')

describe('an authenticator app set up with two tabs open', () => {
  it('a confirmation that commits while the other tab starts again keeps the confirmed app', async () => {
    const member = await newMember()
    const { secret } = await startTotpEnrolment(member, null, 'writer@example.test')
    // Parks both writes on the app's row: the confirmation first, then the other tab's new start.
    const row = await holdLock('SELECT 1 FROM totp_factors WHERE user_id = $1 FOR UPDATE', [member.user.id])
    const confirm = confirmTotpEnrolment(member, null, totpCode(secret, totpStep()))
    await waitForLockWaiters(1)
    const restart = startTotpEnrolment(member, null, 'writer@example.test')
    await waitForLockWaiters(2)
    // Settled before the release: a tab refused while the release is awaited was an unhandled
    // rejection (vitest's "1 error" on a busy machine, 2026-12-02).
    const settled = Promise.allSettled([confirm, restart])
    await row.release()
    const outcomes = await settled
    expect(why(outcomes[0])).toBe('ok')
    // The second tab is told the app is set up; it does not replace it.
    expect(why(outcomes[1])).toMatch(/precondition_failed An authenticator app is already set up/)
    // The member's phone (the first key) still signs them in.
    expect(await verifyTotp(member.user.id, totpCode(secret, totpStep() + 1))).toBe(true)
  }, 30_000)

  it('a confirmation never confirms a key another tab started after this tab showed its QR code', async () => {
    const member = await newMember()
    const { secret } = await startTotpEnrolment(member, null, 'writer@example.test')
    // The member's factor lock held elsewhere: the confirmation (which takes it) waits after reading the key.
    const lock = await holdLock('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`second factors:${member.user.id}`])
    const confirm = confirmTotpEnrolment(member, null, totpCode(secret, totpStep()))
    await waitForLockWaiters(1)
    // The other tab starts again (a new QR code the phone never scanned); it may wait for the lock too.
    const restart = startTotpEnrolment(member, null, 'writer@example.test')
    await Promise.race([restart.then(() => undefined, () => undefined), waitForLockWaiters(2)])
    const settled = Promise.allSettled([confirm, restart])
    await lock.release()
    const [confirmed] = await settled
    const factor = await db.totpFactor.findUnique({ where: { userId: member.user.id } })
    if (confirmed.status === 'fulfilled') {
      // Told "set up, here are your codes": the app they scanned must work.
      expect(factor?.confirmedAt).not.toBeNull()
      expect(await verifyTotp(member.user.id, totpCode(secret, totpStep() + 1))).toBe(true)
    } else {
      // Refused: nothing is confirmed behind the member's back.
      expect(factor?.confirmedAt ?? null).toBeNull()
    }
  }, 30_000)
})
