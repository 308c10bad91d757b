import { TRPCError } from '@trpc/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, registerPasskey, renamePasskey } from '../../lib/auth/passkeys.ts'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { resetSecondFactors } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { inTurnAtFactorLock } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// sec57: every change of a member's factors goes through lockFactorsForLiveSession (the member's
// factor lock, then the asking session read again under it), so a session that "sign out
// everywhere else" or an admin's reset ended while the request waited changes nothing. Two of the
// portal's factor writes did not: renaming a passkey (no lock, no re-read) and starting an
// authenticator app's set-up (the lock, but no re-read; the procedure did not even pass its
// session). A stolen session its owner has just ended could still rename the owner's passkeys
// (which one is which, in the list the owner reads to decide what to remove) and store a new app
// key, after the owner was told every other session was signed out.

const publicUrl = 'https://cms.newsroom.example'
const createCaller = createCallerFactory(appRouter)
type Actor = Parameters<typeof renamePasskey>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec57-rename-and-start-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

/** A member of their own with two live sessions: the owner's, and one someone else holds. */
async function newMember() {
  const { member, email, sessions } = await memberOfTheirOwn(newsroom, 's57', { sessions: { owner: 'Owner laptop', stolen: 'Thief' } })
  return { member, email, ...sessions }
}

/** The owner's passkey, added from the owner's session. */
async function ownersPasskey(member: Actor, owner: string) {
  const sudo = { id: owner, reauthenticatedAt: new Date() }
  const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
  return registerPasskey(member, sudo, { name: 'Owner key', response: key.register(await passkeyRegistrationOptions(member, sudo)) })
}

/**
 * The portal as a request from `sessionId` sees it once the jwt callback let it in (the session
 * was live then, its sudo window fresh): what it does next runs whatever happened since.
 */
function portalOf(member: Actor, email: string, sessionId: string) {
  const context: PortalContext = {
    member: { id: member.user.id, email, name: 'S57', role: 'writer', tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor('writer').tenant,
    session: { id: sessionId, reauthenticatedAt: new Date() },
    clientAddress: '203.0.113.66',
  }
  return createCaller(context)
}

function refusalOf(outcome: PromiseSettledResult<unknown>): { code: string | undefined; message: string } | 'done' {
  if (outcome.status === 'fulfilled') return 'done'
  const error = outcome.reason as Error
  const cause = error instanceof TRPCError ? (error.cause as { code?: string } | undefined) : (error as { code?: string })
  return { code: cause?.code, message: error.message }
}
const refusal = async (promise: Promise<unknown>) => refusalOf((await Promise.allSettled([promise]))[0]!)

const refusedAsEnded = { code: 'precondition_failed', message: expect.stringMatching(/^You were signed out .*Sign in again to do it\.$/) }

describe('renaming a passkey from a session that was ended meanwhile', () => {
  it('"sign out everywhere else" after the request was let in: refused, the owner\'s name stays', async () => {
    const { member, email, owner, stolen } = await newMember()
    const passkey = await ownersPasskey(member, owner)
    const portal = portalOf(member, email, stolen)
    expect(await endOtherPortalSessions(member, owner)).toBe(1)
    expect(await refusal(portal.security.renamePasskey({ passkeyId: passkey.id, name: 'Old phone (lost)' }))).toEqual(refusedAsEnded)
    expect((await db.passkey.findUniqueOrThrow({ where: { id: passkey.id } })).name).toBe('Owner key')
  }, 30_000)

  it('waiting at the member\'s factor lock behind the owner\'s "sign out everywhere else": refused', async () => {
    const { member, owner, stolen } = await newMember()
    const passkey = await ownersPasskey(member, owner)
    const [ended, renamed] = await inTurnAtFactorLock(
      member.user.id,
      () => endOtherPortalSessions(member, owner),
      () => renamePasskey(member, { id: stolen, reauthenticatedAt: new Date() }, passkey.id, 'Old phone (lost)'),
    )
    expect(ended).toEqual({ status: 'fulfilled', value: 1 })
    expect(refusalOf(renamed)).toEqual(refusedAsEnded)
    expect((await db.passkey.findUniqueOrThrow({ where: { id: passkey.id } })).name).toBe('Owner key')
  }, 30_000)

  it('from a live session it still renames', async () => {
    const { member, email, owner } = await newMember()
    const passkey = await ownersPasskey(member, owner)
    expect(await portalOf(member, email, owner).security.renamePasskey({ passkeyId: passkey.id, name: 'Work laptop' })).toMatchObject({ id: passkey.id, name: 'Work laptop' })
  }, 30_000)
})

describe('starting an authenticator app\'s set-up from a session that was ended meanwhile', () => {
  it('"sign out everywhere else" after the request was let in: refused, no key is stored', async () => {
    const { member, email, owner, stolen } = await newMember()
    const portal = portalOf(member, email, stolen)
    expect(await endOtherPortalSessions(member, owner)).toBe(1)
    expect(await refusal(portal.security.startTotp())).toEqual(refusedAsEnded)
    expect(await db.totpFactor.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)

  it('an admin\'s reset queued for the member\'s factor lock ahead of the set-up: refused, no key outlives the reset', async () => {
    const { member, email, stolen } = await newMember()
    const admin = { tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.admin.id } } as Parameters<typeof resetSecondFactors>[1]
    const [reset, start] = await inTurnAtFactorLock(
      member.user.id,
      () => tenantDb(newsroom.tenant.id).$transaction((tx) => resetSecondFactors(tx, admin, member.user.id), { timeout: 20_000 }),
      () => portalOf(member, email, stolen).security.startTotp(),
    )
    expect(reset).toMatchObject({ status: 'fulfilled', value: { endedSessions: 2 } })
    expect(refusalOf(start)).toEqual(refusedAsEnded)
    // What the admin was told (factors reset, sessions ended) holds: no key waits for a code.
    expect(await db.totpFactor.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)

  it('from a live session it still starts', async () => {
    const { member, email, owner } = await newMember()
    const { secret } = await portalOf(member, email, owner).security.startTotp()
    expect(secret).toMatch(/^[A-Z2-7]+$/)
    expect(await db.totpFactor.count({ where: { userId: member.user.id, confirmedAt: null } })).toBe(1)
  }, 30_000)
})
