import type { Role } from '../db/generated/enums.ts'

/** The scopes of section 5 of the spec, with the words the portal shows beside each. */
export const scopeDescriptions = {
  'articles:read': 'Read articles.',
  'articles:write': 'Create, update and publish articles.',
  'media:read': 'Read the media library.',
  'media:write': 'Upload, change and delete media.',
  'analytics:read': 'Read analytics data.',
  'webhooks:manage': 'Create and delete webhook subscriptions.',
  'events:read': 'Read the newsroom\'s events of the last 30 days (articles, users, workflow), as webhooks carry them.',
  admin: 'Full access.',
} as const

export type Scope = keyof typeof scopeDescriptions

/**
 * Scopes of the spec whose APIs this service does not serve yet (there is no media library or
 * analytics). A key may carry them, so an integration can be set up ahead, but nothing answers
 * to them; the portal says so where it offers them. lib/tokens/scopes.test.ts checks this list
 * against the scopes the API reference requires.
 */
export const scopesWithoutEndpoints: ReadonlySet<Scope> = new Set(['analytics:read'])

export const allScopes = Object.keys(scopeDescriptions) as Scope[]

export function isScope(value: string): value is Scope {
  return Object.hasOwn(scopeDescriptions, value)
}

/** What a user of each role may hand to a token: a token never outranks its owner. */
const grantableByRole: Record<Role, readonly Scope[]> = {
  admin: allScopes,
  editor: ['articles:read', 'articles:write', 'media:read', 'media:write', 'analytics:read'],
  writer: ['articles:read', 'media:read', 'media:write'],
}

export function grantableScopes(role: Role): readonly Scope[] {
  return grantableByRole[role]
}

/**
 * The scopes a token can use now: those it was given, bounded by its owner's current role,
 * so demoting a user also narrows the user's tokens.
 */
export function effectiveScopes(tokenScopes: readonly string[], ownerRole: Role): Scope[] {
  const grantable = new Set(grantableByRole[ownerRole])
  return tokenScopes.filter((scope): scope is Scope => isScope(scope) && grantable.has(scope))
}

export function hasScope(scopes: readonly Scope[], needed: Scope): boolean {
  return scopes.includes('admin') || scopes.includes(needed)
}

/** Scopes whose keys can take over the newsroom's integrations: minting one is a sudo act (recent-authentication.ts). */
export const sensitiveScopes: readonly Scope[] = ['admin', 'webhooks:manage']

export function grantsSensitiveScope(scopes: readonly string[]): boolean {
  return scopes.some((scope) => (sensitiveScopes as readonly string[]).includes(scope))
}

/** The scopes an operation takes, as a refusal names them: "articles:read or webhooks:manage". */
export function scopeNames(scope: Scope, alsoScopes: readonly Scope[] = []): string {
  return [scope, ...alsoScopes].join(' or ')
}
