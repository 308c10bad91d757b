import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'
import { allScopes, scopesWithoutEndpoints } from '../../lib/tokens/scopes.ts'

describe('scopes the portal marks as having no endpoints yet', () => {
  it('are exactly the scopes (other than admin) that no operation of the API reference requires', () => {
    const required = new Set<string>()
    for (const path of Object.values(buildOpenApiDocument().paths ?? {})) {
      for (const operation of Object.values(path as Record<string, unknown>)) {
        const scope = (operation as { 'x-required-scope'?: string } | null)?.['x-required-scope']
        if (scope) required.add(scope)
      }
    }
    expect(required.size).toBeGreaterThan(0)
    const unserved = allScopes.filter((scope) => scope !== 'admin' && !required.has(scope))
    expect(unserved.sort()).toEqual([...scopesWithoutEndpoints].sort())
  })
})
