import { beforeAll, describe, expect, it } from 'vitest'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { inTurnAtFactorLock } from '../support/row-locks.ts'

// break58: "sign out everywhere else" ended every session but the asking one without reading the
// asking session again under the member's factor lock (a password change does: lockMemberToEndSessions
// with `asking`). The owner, seeing a stranger's session on the Security page, presses "sign out
// everywhere else"; the stranger (a stolen cookie) presses it in the same instant. Both pass the
// door (their sessions are live when the request arrives); the owner's ends the stranger's
// session, and then the stranger's, from a session already ended, ended the owner's: the owner
// is thrown out by a session that was no longer theirs to use, and must sign in again.

let newsroom: TestTenant
beforeAll(async () => {
  newsroom = await createTestTenant()
})

const live = async (id: string) => (await db.portalSession.findUniqueOrThrow({ where: { id } })).endedAt === null

describe('"sign out everywhere else" from a session ended in the same instant', () => {
  it('the owner\'s ends the stranger\'s first: the stranger\'s is refused (409) and the owner stays signed in', async () => {
    const { member, id, sessions } = await memberOfTheirOwn(newsroom, 'b58s', { sessions: { owner: 'Owner laptop', stolen: 'Stolen cookie' } })
    const [owners, strangers] = await inTurnAtFactorLock(id, () => endOtherPortalSessions(member, sessions.owner), () => endOtherPortalSessions(member, sessions.stolen))
    expect(owners).toMatchObject({ status: 'fulfilled', value: 1 })
    expect(strangers.status).toBe('rejected')
    expect((strangers as PromiseRejectedResult).reason).toMatchObject({ code: 'precondition_failed' })
    expect((strangers as PromiseRejectedResult).reason.message).toMatch(/Sign in again/)
    expect(await live(sessions.owner)).toBe(true)
    expect(await live(sessions.stolen)).toBe(false)
  }, 60_000)

  it('from a live session, ends the others', async () => {
    const { member, sessions } = await memberOfTheirOwn(newsroom, 'b58t', { sessions: { owner: 'Owner laptop', phone: 'Phone' } })
    await expect(endOtherPortalSessions(member, sessions.owner)).resolves.toBe(1)
    expect(await live(sessions.owner)).toBe(true)
    expect(await live(sessions.phone)).toBe(false)
  }, 60_000)
})
