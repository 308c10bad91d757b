import pg from 'pg'
import { e2eDatabaseUrl } from './e2e-env.ts'

/** One query against the e2e server's database, from the test process (Node side). */
export async function queryE2eDatabase<Row extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: e2eDatabaseUrl() })
  await client.connect()
  try {
    return (await client.query<Row>(sql, params)).rows
  } finally {
    await client.end()
  }
}

/**
 * A /v1 token made with the domain's own createApiToken against the e2e database. The
 * database client reads DATABASE_URL when first imported, so the import waits until it is set.
 */
export async function createE2eApiToken(tenantSlug: string, ownerEmail: string, scopes: string[], name = `e2e ${scopes.join(' ')}`): Promise<string> {
  process.env.DATABASE_URL = e2eDatabaseUrl()
  const [owner] = await queryE2eDatabase<{ id: string; tenant_id: string }>(
    'SELECT u.id, u.tenant_id FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.slug = $1 AND u.email = $2',
    [tenantSlug, ownerEmail],
  )
  if (!owner) throw new Error(`No user ${ownerEmail} in ${tenantSlug}`)
  const { createApiToken } = await import('../../lib/tokens/api-tokens.ts')
  const { systemActor } = await import('../../lib/tenancy/system-actor.ts')
  const { parseInput } = await import('../../lib/parse-input.ts')
  const { createApiTokenSchema } = await import('../../lib/tokens/api-token-schemas.ts')
  const { db } = await import('../../lib/db/client.ts')
  try {
    const created = await createApiToken((await systemActor(owner.tenant_id))!, { ...parseInput(createApiTokenSchema, { name, scopes }), ownerId: owner.id })
    return created.token
  } finally {
    await db.$disconnect()
  }
}

/** A content API key (/content/v1) of the newsroom, made with the domain's createContentKey. */
export async function createE2eContentKey(tenantSlug: string, name = `e2e site ${Date.now()}`): Promise<string> {
  process.env.DATABASE_URL = e2eDatabaseUrl()
  const [tenant] = await queryE2eDatabase<{ id: string }>('SELECT id FROM tenants WHERE slug = $1', [tenantSlug])
  if (!tenant) throw new Error(`No newsroom ${tenantSlug}`)
  const { createContentKey } = await import('../../lib/content/content-keys.ts')
  const { systemActor } = await import('../../lib/tenancy/system-actor.ts')
  const { db } = await import('../../lib/db/client.ts')
  try {
    return (await createContentKey((await systemActor(tenant.id))!, name)).key
  } finally {
    await db.$disconnect()
  }
}
