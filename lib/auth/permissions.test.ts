import { describe, expect, it } from 'vitest'
import { ForbiddenError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { effectiveScopes } from '../tokens/scopes.ts'
import { assertCan, assertMemberCan, can, refusalFor } from './permissions.ts'

const tenant = { id: 'ten_1', slug: 'daily', name: 'Daily', plan: 'standard', publicSiteUrl: 'https://daily.example' } as const
const member = (role: 'admin' | 'editor' | 'writer'): Actor => ({ tenant, user: { id: `usr_${role}`, role } })
const system: Actor = { tenant, user: null }

describe('permissions', () => {
  it('gives each role the scopes its keys may carry: one table for people and tokens', () => {
    expect(can(member('admin'), 'webhooks:manage')).toBe(true)
    expect(can(member('editor'), 'articles:write')).toBe(true)
    expect(can(member('editor'), 'webhooks:manage')).toBe(false)
    expect(can(member('writer'), 'articles:write')).toBe(false)
    expect(can(member('writer'), 'articles:read')).toBe(true)
    // A token never outranks its owner: what the owner cannot do, the owner's token cannot either.
    for (const role of ['admin', 'editor', 'writer'] as const) {
      for (const scope of effectiveScopes(['articles:read', 'articles:write', 'webhooks:manage', 'admin'], role)) expect(can({ role }, scope)).toBe(true)
    }
  })

  it('lets the system do everything, but not what only a person may do', () => {
    expect(can(system, 'admin')).toBe(true)
    expect(() => assertCan(system, 'admin')).not.toThrow()
    expect(() => assertMemberCan(system, 'admin')).toThrow(ForbiddenError)
  })

  it('refuses with 403 in words that name who may', () => {
    expect(() => assertCan(member('editor'), 'admin')).toThrow(new ForbiddenError('Only admin users can do this.'))
    expect(refusalFor('articles:write')).toBe('Only admin or editor users can do this.')
  })
})
