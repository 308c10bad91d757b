import { beforeEach, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { listAuditEntries } from '../../lib/audit/list-audit-entries.ts'
import { db } from '../../lib/db/client.ts'
import { addDepartment as addParsed, listDepartments, removeDepartment, renameDepartment as renameParsed } from '../../lib/departments/manage-departments.ts'
import { addDepartmentSchema, renameDepartmentSchema } from '../../lib/departments/department-schemas.ts'
import { parseInput } from '../../lib/parse-input.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'
import { changeRoleSchema } from '../../lib/users/user-schemas.ts'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts'
import { createId } from '../../lib/ids.ts'
import { createApiToken, revokeApiToken } from '../../lib/tokens/api-tokens.ts'
import { changeRole, createUser } from '../../lib/users/manage-users.ts'
import { lastDeliveryResults } from '../../lib/webhooks/last-delivery-results.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// As the portal's adapter calls them: the input parsed first (the domain takes parsed input).
const addDepartment = async (actor: Actor, raw: { name: string }) => addParsed(actor, parseInput(addDepartmentSchema, raw))
const renameDepartment = async (actor: Actor, raw: { departmentId: string; name: string }) => renameParsed(actor, parseInput(renameDepartmentSchema, raw))

let newsroom: TestTenant

beforeEach(async () => {
  newsroom = await createTestTenant()
})

async function refusal(promise: Promise<unknown>) {
  return promise.then(() => null, (error: unknown) => error as Error & { code?: string; fieldErrors?: unknown })
}

describe('departments', () => {
  it('adds, renames and lists with article counts', async () => {
    const admin = newsroom.actor('admin')
    const culture = await addDepartment(admin, { name: '  Culture ' })
    expect(culture).toMatchObject({ name: 'Culture', articleCount: 0 })
    await createArticle(newsroom.actor('writer'), { headline: 'Filed under sport', department_id: newsroom.departments[1]!.id })

    const renamed = await renameDepartment(admin, { departmentId: newsroom.departments[1]!.id, name: 'Sports' })
    expect(renamed).toMatchObject({ id: newsroom.departments[1]!.id, name: 'Sports', articleCount: 1 })
    expect((await listDepartments(newsroom.actor('admin'))).map((d) => [d.name, d.articleCount])).toEqual([
      ['Culture', 0],
      ['News', 0],
      ['Sports', 1],
    ])
  })

  it('refuses a name in use (whatever its case) with a 409 naming the clash, and an empty one, naming the field', async () => {
    const admin = newsroom.actor('admin')
    const duplicate = await refusal(addDepartment(admin, { name: 'news' }))
    expect(duplicate).toBeInstanceOf(ConflictError)
    expect(duplicate).toMatchObject({ status: 409, code: 'department_name_taken', message: 'A department named “News” exists already.', extra: { existing_name: 'News' } })
    expect(duplicate?.fieldErrors).toEqual([{ field: 'name', message: 'A department named “News” exists already.' }])
    expect(await refusal(renameDepartment(admin, { departmentId: newsroom.departments[1]!.id, name: 'NEWS' }))).toMatchObject({ status: 409, code: 'department_name_taken' })
    expect(await refusal(addDepartment(admin, { name: '   ' }))).toBeInstanceOf(ValidationError)
    // Renaming to its own name in another case is fine.
    expect((await renameDepartment(admin, { departmentId: newsroom.departments[0]!.id, name: 'NEWS' })).name).toBe('NEWS')
  })

  it('caps a newsroom at 200 departments: the 201st is a 422 on the name saying so, and removing one makes room', async () => {
    const admin = newsroom.actor('admin')
    const existing = (await listDepartments(admin)).length
    await db.department.createMany({ data: Array.from({ length: 200 - existing }, (_, i) => ({ id: createId('dep'), tenantId: newsroom.tenant.id, name: `Desk ${i}` })) })
    const refused = await refusal(addDepartment(admin, { name: 'One too many' }))
    expect(refused).toBeInstanceOf(ValidationError)
    expect(refused).toMatchObject({ status: 422 })
    expect(refused?.fieldErrors).toEqual([{ field: 'name', message: 'A newsroom has at most 200 departments; remove one first.' }])
    await removeDepartment(admin, { departmentId: (await listDepartments(admin)).find((d) => d.name === 'Desk 0')!.id })
    expect((await addDepartment(admin, { name: 'One too many' })).name).toBe('One too many')
  })

  it('two admins adding "Rowing" and "rowing" at the same moment: one is added, the other is a 409 naming it', async () => {
    const admin = newsroom.actor('admin')
    // Many pairs, so that some really do pass the app's own check together and meet the index.
    for (let i = 0; i < 10; i++) {
      const results = await Promise.allSettled([addDepartment(admin, { name: `Rowing ${i}` }), addDepartment(admin, { name: `rowing ${i}` })])
      const added = results.filter((result) => result.status === 'fulfilled')
      const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []))
      expect(added).toHaveLength(1)
      expect(refused).toHaveLength(1)
      const winner = (added[0] as PromiseFulfilledResult<{ name: string }>).value.name
      expect(refused[0]).toMatchObject({ status: 409, code: 'department_name_taken', message: `A department named “${winner}” exists already.` })
    }
    const names = (await listDepartments(newsroom.actor('admin'))).map((department) => department.name.toLowerCase())
    expect(new Set(names).size).toBe(names.length)
  })

  it('the database itself refuses a second name that differs only in case', async () => {
    await expect(db.department.create({ data: { id: createId('dep'), tenantId: newsroom.tenant.id, name: 'SPORT' } })).rejects.toMatchObject({ code: 'P2002' })
  })

  it('removes an unused department and refuses one that articles use, saying how many', async () => {
    const admin = newsroom.actor('admin')
    const [news, sport] = newsroom.departments
    await createArticle(newsroom.actor('writer'), { headline: 'One', department_id: sport!.id })
    await createArticle(newsroom.actor('writer'), { headline: 'Two', department_id: sport!.id })

    const inUse = await refusal(removeDepartment(admin, { departmentId: sport!.id }))
    expect(inUse).toBeInstanceOf(ConflictError)
    expect(inUse?.code).toBe('department_in_use')
    expect(inUse?.message).toBe('“Sport” cannot be removed while 2 articles use it. Move those articles to another department first.')
    expect(await db.department.findUnique({ where: { id: sport!.id } })).not.toBeNull()

    await removeDepartment(admin, { departmentId: news!.id })
    expect(await db.department.findUnique({ where: { id: news!.id } })).toBeNull()
  })

  it('keeps to its own newsroom and to admins', async () => {
    const other = await createTestTenant()
    const admin = newsroom.actor('admin')
    expect(await refusal(renameDepartment(admin, { departmentId: other.departments[0]!.id, name: 'Mine now' }))).toBeInstanceOf(NotFoundError)
    expect(await refusal(removeDepartment(admin, { departmentId: other.departments[0]!.id }))).toBeInstanceOf(NotFoundError)
    expect(await db.department.findUnique({ where: { id: other.departments[0]!.id } })).toMatchObject({ name: 'News' })
    expect(await refusal(addDepartment(newsroom.actor('editor'), { name: 'Editors’ own' }))).toBeInstanceOf(ForbiddenError)
  })
})

describe('audit log', () => {
  it('lists who did what to which target, newest first, for this newsroom only', async () => {
    const admin = newsroom.actor('admin')
    const { summary } = await createApiToken(newsroom.actor('admin'), { name: 'Wire importer', scopes: ['articles:read'] })
    await revokeApiToken(newsroom.actor('admin'), summary.id)
    const { user } = await createUser(admin, { email: 'clark@example.com', name: 'Clark Kent', role: 'writer' })
    await changeRole(admin, parseInput(changeRoleSchema, { userId: user.id, role: 'editor' }))
    const other = await createTestTenant()
    await createUser(other.actor('admin'), { email: 'elsewhere@example.com', name: 'Elsewhere', role: 'writer' })

    const page = await listAuditEntries(newsroom.actor('admin'))
    expect(page.total).toBe(4)
    expect(page.items.map((entry) => [entry.action, entry.targetLabel])).toEqual([
      ['user.role_changed', 'Clark Kent (clark@example.com)'],
      ['user.created', 'Clark Kent (clark@example.com)'],
      ['api_token.revoked', 'Wire importer'],
      ['api_token.created', 'Wire importer'],
    ])
    expect(page.items[0]).toMatchObject({
      actor: { id: newsroom.users.admin.id, name: `${newsroom.tenant.slug} admin`, email: newsroom.users.admin.email },
      targetType: 'user',
      targetId: user.id,
      metadata: { previous_role: 'writer', role: 'editor' },
    })

    const second = await listAuditEntries(newsroom.actor('admin'), { limit: 3, offset: 0 })
    expect(second.nextOffset).toBe(3)
    expect((await listAuditEntries(newsroom.actor('admin'), { limit: 3, offset: 3 })).items.map((entry) => entry.action)).toEqual(['api_token.created'])
  })
})

describe('last delivery results', () => {
  it('gives each subscription its latest attempt, and nothing of other newsrooms', async () => {
    const makeSubscription = async (tenant: TestTenant) =>
      db.webhookSubscription.create({
        data: { id: createId('whk'), tenantId: tenant.tenant.id, url: 'https://hooks.example.com/x', events: ['user.created'], secretEncrypted: 'x', ownerId: tenant.users.admin.id },
      })
    const attempt = async (tenant: TestTenant, subscriptionId: string, results: { status: number | null; at: Date; error?: string }[]) => {
      const event = await db.event.create({ data: { id: createId('evt'), tenantId: tenant.tenant.id, kind: 'user.created', occurredAt: new Date(), data: {} } })
      const delivery = await db.delivery.create({ data: { id: createId('dlv'), tenantId: tenant.tenant.id, eventId: event.id, subscriptionId } })
      for (const [index, result] of results.entries()) {
        await db.deliveryAttempt.create({
          data: { id: createId('att'), deliveryId: delivery.id, attempt: index + 1, at: result.at, responseStatus: result.status, durationMs: 12, error: result.error ?? null },
        })
      }
    }
    const first = await makeSubscription(newsroom)
    const quiet = await makeSubscription(newsroom)
    await attempt(newsroom, first.id, [
      { status: 500, at: new Date('2026-01-01T10:00:00Z'), error: 'The receiver answered 500.' },
      { status: 204, at: new Date('2026-01-01T10:01:00Z') },
    ])
    await attempt(newsroom, first.id, [{ status: null, at: new Date('2026-01-01T11:00:00Z'), error: 'Timed out' }])
    const other = await createTestTenant()
    const foreign = await makeSubscription(other)
    await attempt(other, foreign.id, [{ status: 200, at: new Date() }])

    const results = await lastDeliveryResults(newsroom.actor('admin'), [first.id, quiet.id, foreign.id])
    expect([...results.keys()]).toEqual([first.id])
    expect(results.get(first.id)).toMatchObject({ responseStatus: null, error: 'Timed out', succeeded: false, at: new Date('2026-01-01T11:00:00Z') })
  })
})
