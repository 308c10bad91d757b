import { hashPassword } from '../../lib/auth/passwords.ts'
import { db } from '../../lib/db/client.ts'
import type { Plan, Role } from '../../lib/db/generated/enums.ts'
import { createId } from '../../lib/ids.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'
import { createApiToken } from '../../lib/tokens/api-tokens.ts'
import { createApiTokenSchema } from '../../lib/tokens/api-token-schemas.ts'
import { parseInput } from '../../lib/parse-input.ts'

let passwordHash: Promise<string> | undefined

export type TestTenant = Awaited<ReturnType<typeof createTestTenant>>

/** A newsroom with an admin, an editor and a writer, and two departments. */
export async function createTestTenant(options: { plan?: Plan; slug?: string } = {}) {
  passwordHash ??= hashPassword('test-password')
  const slug = options.slug ?? `newsroom-${createId('ten').slice(-8)}`
  const tenant = await db.tenant.create({
    data: { id: createId('ten'), name: `Test ${slug}`, slug, plan: options.plan ?? 'standard', publicSiteUrl: `https://${slug}.example` },
  })
  const users = {} as Record<Role, { id: string; email: string; role: Role }>
  for (const role of ['admin', 'editor', 'writer'] as const) {
    const user = await db.user.create({
      data: { id: createId('usr'), tenantId: tenant.id, email: `${role}@${slug}.example`, name: `${slug} ${role}`, role, passwordHash: await passwordHash },
    })
    users[role] = { id: user.id, email: user.email, role }
  }
  const departments = await Promise.all(
    ['News', 'Sport'].map((name) => db.department.create({ data: { id: createId('dep'), tenantId: tenant.id, name } })),
  )
  const actor = (role: Role = 'editor'): Actor => ({
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl },
    user: { id: users[role].id, role },
  })
  const token = async (scopes: string[], role: Role = 'admin') =>
    (await createApiToken({ ...actor(role), user: null }, { ...parseInput(createApiTokenSchema, { name: `test ${scopes.join(' ')}`, scopes }), ownerId: users[role].id })).token
  return { tenant, users, departments, actor, token }
}

/**
 * A subscription (to an unreachable receiver) for these kinds, stored directly: the outbox
 * sends an event to the queue only when some subscription asked for its kind.
 */
export async function subscribeTo(newsroom: TestTenant, kinds: string[]): Promise<string> {
  const id = createId('whk')
  await db.webhookSubscription.create({
    data: { id, tenantId: newsroom.tenant.id, url: 'https://receiver.invalid/hook', events: kinds, secretEncrypted: 'x', ownerId: newsroom.users.admin.id },
  })
  return id
}
