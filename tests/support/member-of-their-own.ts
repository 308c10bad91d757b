import { startPortalSession } from '../../lib/auth/portal-sessions.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { confirmTotpEnrolment, startTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'
import type { TestTenant } from './fixtures.ts'

/** A signed-in member as the domain's factor functions take them. */
export type SignedInMember = Actor & { user: NonNullable<Actor['user']> }

/** The key of an app stored directly ('confirmed', 'unconfirmed'): codes for it come from totpCode(appSecret, …). */
export const appSecret = 'JBSWY3DPEHPK3PXP'

export type MemberOfTheirOwnOptions<S extends string> = {
  /** Live portal sessions to start, by name: each name's value is the session's user agent. */
  sessions?: Record<S, string>
  /**
   * An authenticator app: 'confirmed' or 'unconfirmed' (a key waiting for a code) stored directly
   * with appSecret, no recovery codes; or enrolled as the portal does it (a new key, confirmed with
   * its code from the named session), with the ten recovery codes the confirmation showed.
   */
  app?: 'confirmed' | 'unconfirmed' | { enrolledFrom: NoInfer<S> }
}

export type MemberOfTheirOwn<S extends string> = {
  member: SignedInMember
  id: string
  email: string
  /** The sessions asked for, by name: their ids. */
  sessions: Record<S, string>
  /** The app asked for: its key, and the recovery codes its enrolment showed (none when stored directly). */
  app: { secret: string; recoveryCodes: string[] } | null
}

const passwordHashes = new Map<string, Promise<string>>()
let sequence = 0

/**
 * A writer of their own in the newsroom (a race on one member's factors must not meet
 * another test's), with the newsroom writer's password ('test-password'), and as asked live
 * sessions and an authenticator app. `tag` names the test file in the member's id and email.
 */
export async function memberOfTheirOwn<S extends string = never>(newsroom: TestTenant, tag: string, options: MemberOfTheirOwnOptions<S> = {}): Promise<MemberOfTheirOwn<S>> {
  if (!passwordHashes.has(newsroom.tenant.id)) passwordHashes.set(newsroom.tenant.id, db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } }).then((writer) => writer.passwordHash))
  const passwordHash = await passwordHashes.get(newsroom.tenant.id)!
  sequence += 1
  const id = `usr_${tag}${Date.now()}${sequence}`
  const email = `${tag}-${id}@example.test`
  await db.user.create({ data: { id, tenantId: newsroom.tenant.id, email, name: `${tag} ${sequence}`, role: 'writer', passwordHash } })
  const member: SignedInMember = { tenant: newsroom.actor('writer').tenant, user: { id, role: 'writer' } }
  const sessions = {} as Record<S, string>
  for (const [name, userAgent] of Object.entries(options.sessions ?? {}) as [S, string][]) {
    sessions[name] = await startPortalSession({ id, tenantId: newsroom.tenant.id }, { userAgent, address: '198.51.100.10' }, new Date())
  }
  let app: MemberOfTheirOwn<S>['app'] = null
  if (options.app === 'confirmed' || options.app === 'unconfirmed') {
    await db.totpFactor.create({ data: { userId: id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(appSecret), confirmedAt: options.app === 'confirmed' ? new Date() : null } })
    app = { secret: appSecret, recoveryCodes: [] }
  } else if (options.app) {
    const { secret } = await startTotpEnrolment(member, null, email)
    const { recoveryCodes } = await confirmTotpEnrolment(member, { id: sessions[options.app.enrolledFrom], reauthenticatedAt: new Date() }, totpCode(secret, totpStep()))
    app = { secret, recoveryCodes }
  }
  return { member, id, email, sessions, app }
}
