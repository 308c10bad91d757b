import { recordAudit } from '../audit.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { createUserJustInTime } from '../users/manage-users.ts'
import type { Member } from './members.ts'
import { slugOfSsoProvider, type SsoLogin } from './sso-connection.ts'
import { issuePendingSignIn } from './pending-sign-in.ts'
import { hasSecondFactor, secondFactorKinds, secondFactorsOf, type SecondFactorKind } from './second-factors.ts'
import { ssoStandsInForPortalFactor } from './two-factor-policy.ts'

/** Why a sign-in through the identity provider was refused: the sign-in page explains each. */
export type SsoRefusal = 'SsoEmailUnverified' | 'SsoUnknownMember' | 'SsoDeactivated' | 'SsoWrongIssuer'

/** The ID token's claims next-auth hands over, after openid-client checked signature, iss, aud, nonce and expiry. */
export type SsoClaims = { iss?: unknown; sub?: unknown; email?: unknown; email_verified?: unknown; name?: unknown }

/**
 * The member an identity provider's verified address belongs to, in the newsroom the sign-in
 * named. Never silently creates anyone: only when the newsroom's admin allowed a domain is a
 * writer created for an address in it (audited). Every refusal is audited with its reason.
 */
export async function resolveSsoMember(login: SsoLogin, claims: SsoClaims): Promise<{ member: Member; credentialsChangedAt: Date | null } | { refused: SsoRefusal }> {
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

  const user = await systemDb().user.findUnique({ where: { email }, select: { id: true, email: true, name: true, role: true, tenantId: true, active: true, credentialsChangedAt: true } })
  if (user && user.tenantId === login.tenantId) {
    if (!user.active) return refuse('SsoDeactivated')
    // With credentialsChangedAt as this read found it, for the sign-in's provedSince (proofBegan).
    return { member: { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: login.tenantName }, credentialsChangedAt: user.credentialsChangedAt }
  }
  // An address of another newsroom is no one here, JIT or not (an address belongs to one newsroom).
  if (user || !login.jitEmailDomain || email.split('@')[1] !== login.jitEmailDomain) return refuse('SsoUnknownMember')
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email.split('@')[0]!
  const created = await createUserJustInTime(login.tenantId, { email, name, issuer: login.issuer })
  return { member: { id: created.id, email: created.email, name: created.name, role: created.role, tenantId: login.tenantId, tenantName: login.tenantName }, credentialsChangedAt: null }
}

/**
 * After the identity provider vouched for a member: whether the portal's own factor is asked
 * too. It is when the newsroom chose "also ask for the portal's factor", or the member is an
 * admin and admins must use the portal's factor regardless (two-factor-policy.ts), and the
 * member has a factor: then no session yet, but a pending sign-in as after a right password, and
 * the kinds of answer its second step offers. A member without a factor signs in, and the policy
 * (which then covers SSO sign-ins too) sets their deadline to set one up.
 */
export async function portalFactorAfterSso(member: Member, provedSince: Date): Promise<{ pendingToken: string; kinds: SecondFactorKind[] } | null> {
  const tenant = await systemDb().tenant.findUniqueOrThrow({ where: { id: member.tenantId }, select: { ssoSecondFactor: true, adminsNeedPortalFactor: true } })
  if (ssoStandsInForPortalFactor(tenant, member.role)) return null
  const factors = await secondFactorsOf(member.id)
  if (!hasSecondFactor(factors)) return null
  return { pendingToken: await issuePendingSignIn(member, provedSince), kinds: secondFactorKinds(factors) }
}

/** Where the browser goes for the second step after the provider: the token rides in the fragment, which no server, log or Referer sees. */
export function portalFactorStepUrl(slug: string, step: { pendingToken: string; kinds: SecondFactorKind[] }): string {
  return `/signin?${new URLSearchParams({ newsroom: slug })}#${new URLSearchParams({ 'second-factor': step.pendingToken, factors: step.kinds.join(',') })}`
}

/**
 * A sign-in through the provider that next-auth refused while checking the provider's answer
 * (state, nonce, PKCE, issuer, audience, signature, expiry): audited for the newsroom with the
 * reason, as the refusals resolveSsoMember decides are. Not awaited by next-auth's logger, so a
 * failed write is logged, never thrown into the sign-in.
 */
export async function recordSsoTokenCheckFailure(providerId: string, reason: string): Promise<void> {
  const slug = slugOfSsoProvider(providerId)
  if (!slug) return
  const tenant = await systemDb().tenant.findUnique({ where: { slug }, select: { id: true } })
  if (!tenant) return
  await recordAudit(systemDb(), {
    tenantId: tenant.id, actorId: null, action: 'sso.sign_in_failed', targetType: 'sso_connection', targetId: tenant.id,
    metadata: { reason: reason.slice(0, 500) },
  })
}

/**
 * next-auth sends a refused provider answer to its error page, and from there to the sign-in page
 * without the newsroom, so the "Sign in with …" button was gone. The callback's redirect to the
 * error page is taken instead to the newsroom's own sign-in page with the same error code.
 */
export function ssoFailureRedirect(providerId: string | undefined, location: string | null | undefined): string | null {
  const slug = slugOfSsoProvider(providerId)
  if (!slug || !location) return null
  let url: URL
  try {
    url = new URL(location, 'http://portal.invalid')
  } catch {
    return null
  }
  if (!url.pathname.endsWith('/api/auth/error')) return null
  const error = (url.searchParams.get('error') ?? 'OAuthCallback').slice(0, 64)
  return `/signin?${new URLSearchParams({ newsroom: slug, error })}`
}
