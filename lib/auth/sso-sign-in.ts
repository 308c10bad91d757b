import { recordAudit } from '../audit.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { createUserJustInTime } from '../users/manage-users.ts'
import type { Member } from './members.ts'
import type { SsoLogin } from './sso-connection.ts'

/** Why a sign-in through the identity provider was refused: the sign-in page explains each. */
export type SsoRefusal = 'SsoEmailUnverified' | 'SsoUnknownMember' | 'SsoDeactivated' | 'SsoWrongIssuer'

/** The ID token's claims next-auth hands over, after openid-client checked signature, iss, aud, nonce and expiry. */
export type SsoClaims = { iss?: unknown; sub?: unknown; email?: unknown; email_verified?: unknown; name?: unknown }

/**
 * The member an identity provider's verified address belongs to, in the newsroom the sign-in
 * named. Never silently creates anyone: only when the newsroom's admin allowed a domain is a
 * writer created for an address in it (audited). Every refusal is audited with its reason.
 */
export async function resolveSsoMember(login: SsoLogin, claims: SsoClaims): Promise<{ member: Member } | { refused: SsoRefusal }> {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : ''
  const refuse = async (refused: SsoRefusal) => {
    await recordAudit(systemDb(), {
      tenantId: login.tenantId, actorId: null, action: 'sso.sign_in_refused', targetType: 'sso_connection', targetId: login.tenantId,
      metadata: { reason: refused, email: email.slice(0, 320), subject: String(claims.sub ?? '').slice(0, 255) },
    })
    return { refused }
  }
  // openid-client compared the token's issuer with the discovery document's; this holds that
  // document to the issuer the admin entered.
  if (typeof claims.iss !== 'string' || claims.iss.replace(/\/+$/, '') !== login.issuer) return refuse('SsoWrongIssuer')
  // Only an address the provider vouches for identifies a member (some let users type any).
  if (!email || claims.email_verified !== true) return refuse('SsoEmailUnverified')

  const user = await systemDb().user.findUnique({ where: { email }, select: { id: true, email: true, name: true, role: true, tenantId: true, active: true } })
  if (user && user.tenantId === login.tenantId) {
    if (!user.active) return refuse('SsoDeactivated')
    return { member: { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: login.tenantName } }
  }
  // An address of another newsroom is no one here, JIT or not (an address belongs to one newsroom).
  if (user || !login.jitEmailDomain || email.split('@')[1] !== login.jitEmailDomain) return refuse('SsoUnknownMember')
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email.split('@')[0]!
  const created = await createUserJustInTime(login.tenantId, { email, name, issuer: login.issuer })
  return { member: { id: created.id, email: created.email, name: created.name, role: created.role, tenantId: login.tenantId, tenantName: login.tenantName } }
}
