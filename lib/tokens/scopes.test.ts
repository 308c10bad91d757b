import { describe, expect, it } from 'vitest'
import { effectiveScopes, grantableScopes, hasScope } from './scopes.ts'

describe('scopes', () => {
  it('admin scope grants everything, other scopes only themselves', () => {
    expect(hasScope(['admin'], 'webhooks:manage')).toBe(true)
    expect(hasScope(['articles:read'], 'articles:read')).toBe(true)
    expect(hasScope(['articles:read'], 'articles:write')).toBe(false)
  })

  it("bounds a token's scopes by its owner's current role", () => {
    const given = ['articles:read', 'articles:write', 'webhooks:manage', 'admin']
    expect(effectiveScopes(given, 'admin')).toEqual(given)
    expect(effectiveScopes(given, 'editor')).toEqual(['articles:read', 'articles:write'])
    expect(effectiveScopes(given, 'writer')).toEqual(['articles:read'])
    expect(effectiveScopes(['bogus:scope'], 'admin')).toEqual([])
  })

  it('never lets a writer or editor grant admin or webhook management', () => {
    for (const role of ['editor', 'writer'] as const) {
      expect(grantableScopes(role)).not.toContain('admin')
      expect(grantableScopes(role)).not.toContain('webhooks:manage')
    }
  })
})
