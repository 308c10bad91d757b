import { TRPCError } from '@trpc/server'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../db/client.ts'
import type { Role } from '../../db/generated/enums.ts'
import { createTestTenant, type TestTenant } from '../../../tests/support/fixtures.ts'
import { createCallerFactory, type PortalContext } from '../init.ts'
import { appRouter } from './app-router.ts'

const createCaller = createCallerFactory(appRouter)
let newsroom: TestTenant
let other: TestTenant

function contextOf(tenant: TestTenant, role: Role): PortalContext {
  const user = tenant.users[role]
  return {
    member: { id: user.id, email: user.email, name: `${tenant.tenant.slug} ${role}`, role, tenantId: tenant.tenant.id, tenantName: tenant.tenant.name },
    tenant: tenant.actor(role).tenant,
  }
}
const as = (role: Role, tenant: TestTenant = newsroom) => createCaller(contextOf(tenant, role))

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
  await as('writer').articles.create({ headline: 'Council budget approved', tags: ['money'] })
})

describe('Settings → Search: the newsroom chooses its search language', () => {
  it('starts without stemming, offers the stemming languages, and refuses anyone but an admin', async () => {
    const answer = await as('admin').newsroom.searchLanguage()
    expect(answer.language).toBe('simple')
    expect(answer.choices.map((choice) => choice.value)).toEqual(expect.arrayContaining(['simple', 'english', 'german', 'french']))
    for (const role of ['editor', 'writer'] as const) {
      await expect(as(role).newsroom.setSearchLanguage({ language: 'english' })).rejects.toBeInstanceOf(TRPCError)
    }
    await expect(as('admin').newsroom.setSearchLanguage({ language: 'klingon' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' })
  })

  it('english makes "budgets" find "budget", is audited with before and after, and leaves other newsrooms alone', async () => {
    const find = async (q: string) => (await as('admin').articles.list({ q, limit: 10, offset: 0 })).items.length
    expect(await find('budgets')).toBe(0)
    await as('admin').newsroom.setSearchLanguage({ language: 'english' })
    expect((await as('admin').newsroom.searchLanguage()).language).toBe('english')
    expect(await find('budgets')).toBe(1)
    const audit = await db.auditEntry.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, action: 'tenant.search_language_changed' } })
    expect(audit).toMatchObject({ actorId: newsroom.users.admin.id, metadata: { from: 'simple', to: 'english' } })
    expect((await as('admin', other).newsroom.searchLanguage()).language).toBe('simple')
  })
})
