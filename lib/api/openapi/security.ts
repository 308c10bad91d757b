import type { oas31 } from 'zod-openapi'
import { scopeDescriptions, type Scope } from '../../tokens/scopes.ts'

export const securitySchemeName = 'bearerAuth'

const scopeTable = Object.entries(scopeDescriptions)
  .map(([scope, grants]) => `| \`${scope}\` | ${grants} |`)
  .join('\n')

export const bearerSecurityScheme: oas31.SecuritySchemeObject = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'nrs_…',
  description: [
    'Send an API key on every request: `Authorization: Bearer nrs_…`.',
    '',
    'Keys start with `nrs_`. An admin creates them in the portal under **Settings → API Keys → Create new key**, naming the key and choosing its scopes. ' +
      'The key is shown once, at creation: store it in your secret manager. Only a hash is kept, so a lost key cannot be recovered; create a new one.',
    '',
    "A key belongs to one newsroom (tenant) and acts as its owner, so its scopes are bounded by the owner's role, and it stops working when the owner is deactivated. " +
      'Keys never expire unless an expiry was chosen at creation (past it, a 401 says when the key expired); rotate them every 90 days: roll the key in the portal ' +
      '(a new secret, the old one working for an overlap you choose) or create a new key, deploy it, then revoke the old one. Revocation takes effect on the next request. ' +
      'A key may also admit only some addresses (CIDRs); a request from elsewhere is a 403 `ip_not_allowed` naming the address.',
    '',
    '| Scope | Grants |',
    '|---|---|',
    scopeTable,
  ].join('\n'),
}

/**
 * The security requirement of an operation that needs `scope`: the scope itself or `admin`,
 * which grants everything. OpenAPI 3.1 lets non-OAuth schemes list the roles they need.
 */
export function scopeRequirement(scope: Scope, alsoScopes: Scope[] = []): { security: oas31.SecurityRequirementObject[]; 'x-required-scope': Scope; 'x-also-scopes'?: Scope[] } {
  const alternatives = scope === 'admin' ? [scope] : [scope, ...alsoScopes, 'admin']
  return {
    security: alternatives.map((needed) => ({ [securitySchemeName]: [needed] })),
    'x-required-scope': scope,
    ...(alsoScopes.length > 0 && { 'x-also-scopes': alsoScopes }),
  }
}
