import { beforeEach, describe, expect, it } from 'vitest'
import { authenticateUser, loadActiveMember } from '../../lib/auth/members.ts'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'
import { authenticateToken } from '../../lib/tokens/authenticate-token.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { changeRole as changeRoleParsed, createUser as createUserParsed, deactivateUser, listUsers } from '../../lib/users/manage-users.ts'
import { changeRoleSchema, createUserSchema, type ChangeRoleInput, type CreateUserInput } from '../../lib/users/user-schemas.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// As the portal's adapter calls them: the input parsed first (the domain takes parsed input).
const createUser = async (actor: Actor, raw: CreateUserInput) => createUserParsed(actor, parseInput(createUserSchema, raw))
const changeRole = async (actor: Actor, raw: ChangeRoleInput) => changeRoleParsed(actor, parseInput(changeRoleSchema, raw))

let newsroom: TestTenant
let admin: Actor

beforeEach(async () => {
  newsroom = await createTestTenant()
  admin = newsroom.actor('admin')
})

function actorFor(userId: string, role: Role): Actor {
  return { ...newsroom.actor(role), user: { id: userId, role } }
}

async function eventsOf(kind: string, userId: string) {
  const rows = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind } })
  return rows.filter((row) => (row.data as { user_id?: string }).user_id === userId)
}

async function auditOf(action: string, userId: string) {
  return db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action, targetId: userId } })
}

async function expectRefusal(promise: Promise<unknown>, type: new (...args: never[]) => Error, code?: string) {
  const error = await promise.then(() => null, (caught: unknown) => caught)
  expect(error).toBeInstanceOf(type)
  if (code) expect((error as { code: string }).code).toBe(code)
  return error as Error
}

/**
 * Makes every audit insert of this database fail, to show that a change and its event are
 * rolled back with the audit entry: all three are one transaction.
 */
async function withFailingAudit<T>(run: () => Promise<T>): Promise<unknown> {
  await db.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit refused for the test'; END $$ LANGUAGE plpgsql`)
  await db.$executeRawUnsafe('CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_audit()')
  try {
    return await run().then(() => null, (error: unknown) => error)
  } finally {
    await db.$executeRawUnsafe('DROP TRIGGER refuse_audit ON audit_entries')
  }
}

describe('createUser', () => {
  it('adds a person who can sign in with the given password; the event and the audit entry are written with it', async () => {
    const { user, generatedPassword } = await createUser(admin, { email: ' Lois@Example.COM ', name: 'Lois Lane', role: 'writer', password: 'a-long-enough-password' })
    expect(generatedPassword).toBeNull()
    expect(user).toMatchObject({ email: 'lois@example.com', name: 'Lois Lane', role: 'writer', active: true })
    expect(await authenticateUser('lois@example.com', 'a-long-enough-password')).toMatchObject({ id: user.id, tenantId: newsroom.tenant.id })

    const [event] = await eventsOf('user.created', user.id)
    expect(event?.data).toEqual({ user_id: user.id, email: 'lois@example.com', name: 'Lois Lane', role: 'writer', created_by: newsroom.users.admin.id })
    const [audit] = await auditOf('user.created', user.id)
    expect(audit).toMatchObject({ actorId: newsroom.users.admin.id, targetType: 'user', metadata: { email: 'lois@example.com', role: 'writer' } })
  })

  it('generates a password when none is given and returns it once', async () => {
    const { user, generatedPassword } = await createUser(admin, { email: 'jimmy@example.com', name: 'Jimmy Olsen', role: 'editor', password: '' })
    expect(generatedPassword).toMatch(/^[A-Za-z2-9]{20}$/)
    expect(await authenticateUser('jimmy@example.com', generatedPassword!)).toMatchObject({ id: user.id, role: 'editor' })
    const stored = await db.user.findUniqueOrThrow({ where: { id: user.id } })
    expect(stored.passwordHash).not.toContain(generatedPassword!)
  })

  it('refuses a used e-mail address (in any newsroom), a short password and missing fields, naming each field', async () => {
    const other = await createTestTenant()
    const taken = (await expectRefusal(createUser(admin, { email: other.users.writer.email.toUpperCase(), name: 'Copy', role: 'writer' }), ValidationError)) as ValidationError
    expect(taken.fieldErrors).toEqual([{ field: 'email', message: expect.stringContaining('already in use') }])

    const invalid = (await expectRefusal(createUser(admin, { email: 'not-an-address', name: ' ', role: 'owner' as Role, password: 'short' }), ValidationError)) as ValidationError
    expect(invalid.fieldErrors.map((error) => error.field).sort()).toEqual(['email', 'name', 'password', 'role'])
    expect(await db.user.count({ where: { tenantId: newsroom.tenant.id } })).toBe(3)
  })

  it('writes nothing when the transaction fails part-way', async () => {
    const error = await withFailingAudit(() => createUser(admin, { email: 'rollback@example.com', name: 'Rolled Back', role: 'writer' }))
    expect(String(error)).toContain('audit refused')
    expect(await db.user.findUnique({ where: { email: 'rollback@example.com' } })).toBeNull()
    expect(await db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'user.created' } })).toBe(0)
  })

  it('is for admins only', async () => {
    await expectRefusal(createUser(newsroom.actor('editor'), { email: 'x@example.com', name: 'X', role: 'writer' }), ForbiddenError)
  })
})

describe('changeRole', () => {
  it('changes the role with its event and audit entry, and narrows the person’s tokens at once', async () => {
    const { user } = await createUser(admin, { email: 'perry@example.com', name: 'Perry White', role: 'admin' })
    const { token } = await import('../../lib/tokens/api-tokens.ts').then(({ createApiToken }) =>
      createApiToken({ ...newsroom.actor('admin'), user: null }, { name: 'Perry’s key', scopes: ['admin'], ownerId: user.id }),
    )
    expect((await authenticateToken(token))?.scopes).toEqual(['admin'])

    const updated = await changeRole(admin, { userId: user.id, role: 'writer' })
    expect(updated.role).toBe('writer')
    expect((await loadActiveMember(user.id))?.role).toBe('writer')
    // The lookup was cached a moment ago; the change still applies to the very next request.
    expect((await authenticateToken(token))?.scopes).toEqual([])

    const [event] = await eventsOf('user.role_changed', user.id)
    expect(event?.data).toMatchObject({ user_id: user.id, previous_role: 'admin', role: 'writer', changed_by: newsroom.users.admin.id })
    const [audit] = await auditOf('user.role_changed', user.id)
    expect(audit?.metadata).toMatchObject({ previous_role: 'admin', role: 'writer' })
  })

  it('does nothing (and records nothing) when the role is the same', async () => {
    await changeRole(admin, { userId: newsroom.users.writer.id, role: 'writer' })
    expect(await eventsOf('user.role_changed', newsroom.users.writer.id)).toHaveLength(0)
    expect(await auditOf('user.role_changed', newsroom.users.writer.id)).toHaveLength(0)
  })

  it('never demotes the last active admin', async () => {
    const error = await expectRefusal(changeRole(admin, { userId: newsroom.users.admin.id, role: 'editor' }), ConflictError, 'last_admin')
    expect(error.message).toContain('last active admin')
    expect((await db.user.findUniqueOrThrow({ where: { id: newsroom.users.admin.id } })).role).toBe('admin')
    expect(await eventsOf('user.role_changed', newsroom.users.admin.id)).toHaveLength(0)

    // A deactivated admin does not count as another admin.
    const { user: second } = await createUser(admin, { email: 'second@example.com', name: 'Second Admin', role: 'admin' })
    await deactivateUser(admin, { userId: second.id })
    await expectRefusal(changeRole(admin, { userId: newsroom.users.admin.id, role: 'writer' }), ConflictError, 'last_admin')
  })

  it('lets exactly one of two admins demoting each other at the same moment succeed', async () => {
    const { user: second } = await createUser(admin, { email: 'rival@example.com', name: 'Rival Admin', role: 'admin' })
    const results = await Promise.allSettled([
      changeRole(admin, { userId: second.id, role: 'editor' }),
      changeRole(actorFor(second.id, 'admin'), { userId: newsroom.users.admin.id, role: 'editor' }),
    ])
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(ConflictError)
    expect(await db.user.count({ where: { tenantId: newsroom.tenant.id, role: 'admin', active: true } })).toBe(1)
  })

  it('rolls the role back with the event when the audit entry cannot be written', async () => {
    const error = await withFailingAudit(() => changeRole(admin, { userId: newsroom.users.writer.id, role: 'editor' }))
    expect(String(error)).toContain('audit refused')
    expect((await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).role).toBe('writer')
    expect(await eventsOf('user.role_changed', newsroom.users.writer.id)).toHaveLength(0)
  })

  it('refuses deactivated people, people of other newsrooms and non-admin actors', async () => {
    await deactivateUser(admin, { userId: newsroom.users.writer.id })
    await expectRefusal(changeRole(admin, { userId: newsroom.users.writer.id, role: 'editor' }), ConflictError, 'user_deactivated')
    const other = await createTestTenant()
    await expectRefusal(changeRole(admin, { userId: other.users.writer.id, role: 'admin' }), NotFoundError)
    expect((await db.user.findUniqueOrThrow({ where: { id: other.users.writer.id } })).role).toBe('writer')
    await expectRefusal(changeRole(newsroom.actor('editor'), { userId: newsroom.users.editor.id, role: 'admin' }), ForbiddenError)
  })
})

describe('deactivateUser', () => {
  it('ends the session and the tokens at once, with its event and audit entry', async () => {
    const token = await newsroom.token(['articles:read'], 'editor')
    expect(await authenticateToken(token)).not.toBeNull()

    const user = await deactivateUser(admin, { userId: newsroom.users.editor.id })
    expect(user.active).toBe(false)
    expect(user.deactivatedAt).toBeInstanceOf(Date)
    expect(await loadActiveMember(newsroom.users.editor.id)).toBeNull()
    expect(await authenticateUser(newsroom.users.editor.email, 'test-password')).toBeNull()
    expect(await authenticateToken(token)).toBeNull()

    const [event] = await eventsOf('user.deactivated', user.id)
    expect(event?.data).toEqual({ user_id: user.id, email: user.email, deactivated_at: user.deactivatedAt!.toISOString(), deactivated_by: newsroom.users.admin.id })
    expect(await auditOf('user.deactivated', user.id)).toHaveLength(1)

    // Deactivating again changes nothing and records nothing more.
    await deactivateUser(admin, { userId: user.id })
    expect(await eventsOf('user.deactivated', user.id)).toHaveLength(1)
  })

  it('refuses one’s own account and the last active admin', async () => {
    await expectRefusal(deactivateUser(admin, { userId: newsroom.users.admin.id }), ConflictError, 'cannot_deactivate_self')
    const { user: deputy } = await createUser(admin, { email: 'deputy@example.com', name: 'Deputy', role: 'admin' })
    // The deputy may deactivate the first admin, since the deputy remains an admin...
    await deactivateUser(actorFor(deputy.id, 'admin'), { userId: newsroom.users.admin.id })
    // ...but a request still in flight from the first admin cannot then remove the last one.
    const error = await expectRefusal(deactivateUser(admin, { userId: deputy.id }), ConflictError, 'last_admin')
    expect(error.message).toContain('Deputy')
    expect((await db.user.findUniqueOrThrow({ where: { id: deputy.id } })).active).toBe(true)
  })

  it('rolls back when the audit entry cannot be written', async () => {
    const error = await withFailingAudit(() => deactivateUser(admin, { userId: newsroom.users.writer.id }))
    expect(String(error)).toContain('audit refused')
    expect((await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).active).toBe(true)
    expect(await eventsOf('user.deactivated', newsroom.users.writer.id)).toHaveLength(0)
  })
})

describe('listUsers', () => {
  it('lists the newsroom’s people, active first, and nobody else’s', async () => {
    await createTestTenant()
    await db.user.update({ where: { id: newsroom.users.editor.id }, data: { active: false, deactivatedAt: new Date() } })
    const users = await listUsers(newsroom.actor('admin'))
    expect(users.map((user) => user.id)).toEqual([newsroom.users.admin.id, newsroom.users.writer.id, newsroom.users.editor.id])
    expect(users[2]).toMatchObject({ active: false })
    expect(Object.keys(users[0]!)).not.toContain('passwordHash')
  })
})

describe('reads of people, departments and keys ask the same permission as their changes', () => {
  it('refuses an editor the list of users, departments, API keys, webhooks and the request log', async () => {
    const { listDepartments } = await import('../../lib/departments/manage-departments.ts')
    const { listApiTokens } = await import('../../lib/tokens/api-tokens.ts')
    const { listWebhooks } = await import('../../lib/webhooks/manage-subscriptions.ts')
    const { listApiRequests } = await import('../../lib/request-log/list-api-requests.ts')
    const editor = newsroom.actor('editor')
    await expect(listUsers(editor)).rejects.toMatchObject({ status: 403, code: 'forbidden' })
    await expect(listDepartments(editor)).rejects.toMatchObject({ status: 403 })
    await expect(listApiTokens(editor)).rejects.toMatchObject({ status: 403 })
    await expect(listWebhooks(editor, { limit: 10, offset: 0 })).rejects.toMatchObject({ status: 403, message: 'Only admin users can do this.' })
    await expect(listApiRequests(editor, { limit: 10, offset: 0 } as never)).rejects.toMatchObject({ status: 403 })
    expect((await listUsers(newsroom.actor('admin'))).length).toBeGreaterThan(0)
  })
})
