import { createDecipheriv, hkdfSync } from 'node:crypto'
import type { Actor } from '../tenancy/actor.ts'
import { loadSessionMember, type BesideSession } from './portal-sessions.ts'
import { sessionSecondFactorOverdue } from './two-factor-policy.ts'

/**
 * The portal member making a request, for the few routes an open page polls (an article page's
 * awareness poll, every 3 s per open editor): the same answer the tRPC context gets through
 * next-auth's getServerSession, at a fraction of its cost. getServerSession derives its key
 * twice (HKDF), decrypts the session JWT, runs the jwt and session callbacks, re-encrypts the
 * sliding cookie and mints a CSRF token on every call; this decrypts the cookie with a key
 * derived once, then makes the one read that decides whether the session is live
 * (loadSessionMember: an ended session, a deactivated member, an idle session are refused on
 * the next request, exactly as the jwt callback refuses them). It does not slide the cookie:
 * the page's other requests and next-auth's own session fetches do.
 */
export type PortalRequestActor = Actor & { user: NonNullable<Actor['user']> }

// next-auth 4's names (jwt/index.js getToken, core/lib/cookie.js): `__Secure-` when the site is
// https, and a cookie over 4 kB split into `.0`, `.1`, ... chunks.
const cookieNames = ['__Secure-next-auth.session-token', 'next-auth.session-token']
// next-auth's `decode` allows 15 s of clock skew on `exp`.
const clockToleranceSeconds = 15

const derivedKeys = new Map<string, Buffer>()

/** next-auth 4's encryption key for a secret (its getDerivedEncryptionKey, no salt), derived once per secret. */
function encryptionKey(secret: string): Buffer {
  let key = derivedKeys.get(secret)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, '', 'NextAuth.js Generated Encryption Key', 32))
    derivedKeys.set(secret, key)
  }
  return key
}

/** The session JWT from a Cookie header (joined from its chunks when next-auth split it), or null. */
export function sessionTokenFromCookies(header: string | null): string | null {
  if (!header) return null
  const cookies = new Map<string, string>()
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim())
  }
  for (const name of cookieNames) {
    const whole = cookies.get(name)
    if (whole) return whole
    const chunks: string[] = []
    for (let index = 0; cookies.has(`${name}.${index}`); index++) chunks.push(cookies.get(`${name}.${index}`)!)
    if (chunks.length) return chunks.join('')
  }
  return null
}

/**
 * The claims of a session JWT as next-auth 4 encrypts it (compact JWE, alg "dir", enc
 * "A256GCM"), or null when it is malformed, forged, encrypted under another secret or expired.
 */
export function decodeSessionToken(token: string, secret: string, nowSeconds = Date.now() / 1000): Record<string, unknown> | null {
  const parts = token.split('.')
  if (parts.length !== 5) return null
  const [protectedHeader, encryptedKey, iv, ciphertext, tag] = parts as [string, string, string, string, string]
  try {
    const header = JSON.parse(Buffer.from(protectedHeader, 'base64url').toString('utf8')) as { alg?: string; enc?: string }
    if (header.alg !== 'dir' || header.enc !== 'A256GCM' || encryptedKey !== '') return null
    const authTag = Buffer.from(tag, 'base64url')
    if (authTag.length !== 16) return null
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey(secret), Buffer.from(iv, 'base64url'), { authTagLength: 16 })
    decipher.setAAD(Buffer.from(protectedHeader, 'ascii'))
    decipher.setAuthTag(authTag)
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()])
    const claims = JSON.parse(plain.toString('utf8')) as Record<string, unknown>
    if (typeof claims !== 'object' || claims === null) return null
    if (typeof claims.exp !== 'number' || claims.exp + clockToleranceSeconds <= nowSeconds) return null
    return claims
  } catch {
    return null
  }
}

/** The secret next-auth signs sessions with (auth-options.ts sets none of its own). */
const sessionSecret = () => process.env.NEXTAUTH_SECRET ?? process.env.AUTH_SECRET ?? ''

/** What the routes read of a session cookie: the session and member it names, and how they signed in. */
export type PortalSessionClaims = { sessionId: string; userId: string; signInMethod: unknown }

/** The claims of the request's session cookie, or null: no cookie, one that does not decrypt, or an expired one. */
export function portalSessionClaims(request: { headers: { get(name: string): string | null } }, secret = sessionSecret()): PortalSessionClaims | null {
  if (!secret) return null
  const token = sessionTokenFromCookies(request.headers.get('cookie'))
  if (!token) return null
  const claims = decodeSessionToken(token, secret)
  if (!claims || typeof claims.sessionId !== 'string' || typeof claims.userId !== 'string') return null
  return { sessionId: claims.sessionId, userId: claims.userId, signInMethod: claims.signInMethod }
}

/**
 * The member of the live session the claims name, as the domain's Actor (the newsroom comes
 * from the session's row, never from the cookie), or null once the session has ended.
 */
export async function portalActorOf(claims: PortalSessionClaims): Promise<PortalRequestActor | null> {
  return (await portalActorWith(claims))?.actor ?? null
}

/**
 * portalActorOf, with what `beside` reads in the same statement as the session (BesideSession):
 * null, as for portalActorOf, unless the session is live; `beside` is then its row, or null.
 */
export async function portalActorWith<Beside = never>(claims: PortalSessionClaims, beside?: BesideSession): Promise<{ actor: PortalRequestActor; beside: Beside | null } | null> {
  const live = await loadSessionMember<Beside>(claims.sessionId, claims.userId, new Date(), beside)
  if (!live) return null
  // Past the two-factor grace only Security works (docs/admins.md, "Signing in"): these routes are
  // answered before proxy.ts and the portal's pages, so they ask the same question themselves.
  if (await sessionSecondFactorOverdue(live, claims.signInMethod)) return null
  return { actor: { tenant: live.member.tenant, user: { id: live.member.id, role: live.member.role } }, beside: live.beside }
}

/**
 * The signed-in member of a live portal session, as the domain's Actor, or null: no cookie, a
 * cookie that does not decrypt, an expired one, or a session that has ended.
 */
export async function portalRequestActor(request: { headers: { get(name: string): string | null } }, secret = sessionSecret()): Promise<PortalRequestActor | null> {
  const claims = portalSessionClaims(request, secret)
  return claims && portalActorOf(claims)
}
