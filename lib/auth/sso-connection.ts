import { z } from 'zod'
import { recordAudit } from '../audit.ts'
import { ValidationError } from '../errors.ts'
import { decryptSecret, encryptSecret } from '../security/secret-box.ts'
import { logger } from '../ops/logger.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb } from '../tenancy/tenant-db.ts'
import { assertCan } from './permissions.ts'
import type { PortalSessionState } from './portal-sessions.ts'
import { assertRecentlyAuthenticated } from './recent-authentication.ts'

/** next-auth's provider id of a newsroom's SSO: the callback URL its IT registers ends in it. */
export function ssoProviderId(slug: string): string {
  return `sso-${slug}`
}

/** The newsroom slug of an SSO provider id, or null for any other provider. */
export function slugOfSsoProvider(providerId: string | undefined): string | null {
  return providerId?.startsWith('sso-') && providerId.length > 4 ? providerId.slice(4) : null
}

/** An issuer as people paste it: https (http only on this machine, for tests and local providers), no trailing slash. */
const issuerSchema = z
  .string()
  .trim()
  .min(1, 'Enter the issuer URL your identity provider gives (e.g. https://login.example.org).')
  .max(500)
  .refine((value) => {
    try {
      const url = new URL(value)
      return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    } catch {
      return false
    }
  }, 'The issuer must be an https:// URL (e.g. https://login.example.org).')
  .transform((value) => value.replace(/\/+$/, ''))

const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'Enter a domain like example.org (no @, no https://).')

export const saveSsoConnectionSchema = z.object({
  displayName: z.string().trim().min(1, 'Name the identity provider (shown as "Sign in with …").').max(80),
  issuer: issuerSchema,
  clientId: z.string().trim().min(1, 'Enter the client id your identity provider issued.').max(255),
  /** Empty keeps the stored secret; required the first time. */
  clientSecret: z.string().max(1000).optional().default(''),
  enabled: z.boolean().default(true),
  requireSso: z.boolean().default(false),
  /** Just-in-time creation of writers for this domain; null or empty: off. */
  jitEmailDomain: z.union([domainSchema, z.literal(''), z.null()]).optional().transform((value) => value || null),
})

export type SaveSsoConnectionInput = z.input<typeof saveSsoConnectionSchema>

/** What Settings shows: never the secret, only that one is stored. */
export type SsoConnectionView = {
  displayName: string
  issuer: string
  clientId: string
  clientSecretSet: boolean
  /** False when the stored secret no longer decrypts: Settings asks for it again (unreadableSsoSecret). */
  clientSecretReadable: boolean
  enabled: boolean
  requireSso: boolean
  jitEmailDomain: string | null
  updatedAt: string
}

export async function getSsoConnection(actor: Actor): Promise<SsoConnectionView | null> {
  assertCan(actor, 'admin')
  const row = await tenantDb(actor.tenant.id).ssoConnection.findUnique({ where: { tenantId: actor.tenant.id } })
  return row && toView(row)
}

/**
 * Sets the newsroom's identity provider. A dangerous act (who may sign in, whether passwords
 * still work), so it asks for a recent sign-in or confirmation (sudo mode) and is audited with
 * what changed; the secret's value is never written to the log.
 */
export async function saveSsoConnection(actor: Actor, session: PortalSessionState | null, input: z.output<typeof saveSsoConnectionSchema>): Promise<SsoConnectionView> {
  assertCan(actor, 'admin')
  assertRecentlyAuthenticated(session)
  const tenantId = actor.tenant.id
  return tenantDb(tenantId).$transaction(async (tx) => {
    const before = await tx.ssoConnection.findUnique({ where: { tenantId } })
    if (!before && !input.clientSecret) throw new ValidationError([{ field: 'clientSecret', message: 'Enter the client secret your identity provider issued.' }], 'Enter the client secret your identity provider issued.')
    // Keeping a secret that no longer decrypts would keep sign-ins failing: say so, unless SSO is being switched off.
    if (before && !input.clientSecret && input.enabled && !ssoSecretReadable(before.clientSecretEncrypted)) {
      throw new ValidationError([{ field: 'clientSecret', message: unreadableSsoSecret }], unreadableSsoSecret)
    }
    const fields = { displayName: input.displayName, issuer: input.issuer, clientId: input.clientId, enabled: input.enabled, requireSso: input.requireSso, jitEmailDomain: input.jitEmailDomain }
    // Empty keeps the stored secret. Not an upsert: its create branch would need a secret even
    // when the row exists and is only updated (Prisma validates both branches), which made every
    // save without retyping the secret a 500.
    const secret = input.clientSecret ? { clientSecretEncrypted: encryptSecret(input.clientSecret) } : {}
    const row = before
      ? await tx.ssoConnection.update({ where: { tenantId }, data: { ...fields, ...secret } })
      : await tx.ssoConnection.create({ data: { tenantId, ...fields, clientSecretEncrypted: encryptSecret(input.clientSecret) } })
    const changed = Object.entries(fields)
      .filter(([key, value]) => !before || before[key as keyof typeof fields] !== value)
      .map(([key]) => key)
    if (input.clientSecret) changed.push('clientSecret')
    await recordAudit(tx, {
      tenantId, actorId: actor.user?.id ?? null, action: 'sso.updated', targetType: 'sso_connection', targetId: tenantId,
      metadata: { changed, issuer: row.issuer, clientId: row.clientId, enabled: row.enabled, requireSso: row.requireSso, jitEmailDomain: row.jitEmailDomain, created: !before },
    })
    return toView(row)
  })
}

/** What a sign-in through the newsroom's provider needs, read by slug before anyone is signed in. */
export type SsoLogin = { tenantId: string; tenantName: string; slug: string; displayName: string; issuer: string; clientId: string; clientSecret: string; requireSso: boolean; jitEmailDomain: string | null }

/** The newsroom's enabled SSO, or null (unknown newsroom, none set up, or switched off). */
export async function loadSsoLogin(slug: string): Promise<SsoLogin | null> {
  const tenant = await systemDb().tenant.findUnique({ where: { slug }, select: { id: true, name: true, slug: true, ssoConnection: true } })
  const connection = tenant?.ssoConnection
  if (!tenant || !connection?.enabled) return null
  let clientSecret: string
  try {
    clientSecret = decryptSecret(connection.clientSecretEncrypted)
  } catch (error) {
    // The operator's key changed (WEBHOOK_SECRET_KEY) or the row was altered: nothing a person
    // signing in caused, so they are not shown a 500; the sign-in offers no provider and the
    // operator is told what to mend.
    logger.error({ tenant: tenant.slug, error: (error as Error).message }, 'the newsroom SSO client secret cannot be decrypted; an admin must enter it again in Settings')
    return null
  }
  return {
    tenantId: tenant.id, tenantName: tenant.name, slug: tenant.slug, displayName: connection.displayName, issuer: connection.issuer, clientId: connection.clientId,
    clientSecret, requireSso: connection.requireSso, jitEmailDomain: connection.jitEmailDomain,
  }
}

/** What the sign-in page and Settings say of a stored client secret the service can no longer read. */
export const unreadableSsoSecret = "The stored client secret can't be read (the server's encryption key changed, or the stored value was altered); enter it again."

/** Whether the stored secret still decrypts with the server's key. */
export function ssoSecretReadable(stored: string): boolean {
  try {
    decryptSecret(stored)
    return true
  } catch {
    return false
  }
}

/**
 * For the sign-in page: the newsroom's name and its provider's, without the secret; `unavailable`
 * says why the button cannot work (a secret that no longer decrypts) instead of a button that fails.
 */
export async function ssoSignInOption(slug: string): Promise<{ slug: string; newsroom: string; displayName: string; unavailable: string | null } | null> {
  const tenant = await systemDb().tenant.findUnique({ where: { slug }, select: { name: true, slug: true, ssoConnection: { select: { enabled: true, displayName: true, clientSecretEncrypted: true } } } })
  if (!tenant?.ssoConnection?.enabled) return null
  const unavailable = ssoSecretReadable(tenant.ssoConnection.clientSecretEncrypted)
    ? null
    : `Single sign-on for ${tenant.name} can't be used right now: the stored secret can't be read. An admin of the newsroom must enter the client secret again in Settings → Single sign-on; admins can sign in with their password meanwhile.`
  return { slug: tenant.slug, newsroom: tenant.name, displayName: tenant.ssoConnection.displayName, unavailable }
}

/** Whether the newsroom turned password sign-in off (see authorize in auth-options.ts). */
export async function ssoRequirement(tenantId: string): Promise<{ slug: string } | null> {
  const row = await systemDb().ssoConnection.findUnique({ where: { tenantId }, select: { enabled: true, requireSso: true, tenant: { select: { slug: true } } } })
  return row?.enabled && row.requireSso ? { slug: row.tenant.slug } : null
}

function toView(row: { displayName: string; issuer: string; clientId: string; clientSecretEncrypted: string; enabled: boolean; requireSso: boolean; jitEmailDomain: string | null; updatedAt: Date }): SsoConnectionView {
  return {
    displayName: row.displayName, issuer: row.issuer, clientId: row.clientId, clientSecretSet: row.clientSecretEncrypted.length > 0,
    clientSecretReadable: row.clientSecretEncrypted.length > 0 && ssoSecretReadable(row.clientSecretEncrypted),
    enabled: row.enabled, requireSso: row.requireSso, jitEmailDomain: row.jitEmailDomain, updatedAt: row.updatedAt.toISOString(),
  }
}
