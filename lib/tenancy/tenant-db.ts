import { db, type Database } from '../db/client.ts'

/**
 * Models whose rows belong to one tenant. Every query through a tenant database is
 * narrowed to that tenant here, once, so no caller can forget the `where`.
 */
const tenantOwnedModels = new Set([
  'User',
  'Department',
  'Article',
  'ArticleTransition',
  'ArticleRevision',
  'ArticleLease',
  'ArticleNote',
  'PreviewLink',
  'ApiToken',
  'ContentKey',
  'WebhookSubscription',
  'Event',
  'Delivery',
  'MailMessage',
  'AuditEntry',
  'ApiRequest',
  'PortalSession',
  'SsoConnection',
  'Passkey',
  'TotpFactor',
  'RecoveryCode',
  'PendingSignIn',
  'Media',
])

const whereOperations = new Set([
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany',
  'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany',
  'count', 'aggregate', 'groupBy', 'upsert',
])

const createOperations = new Set(['create', 'createMany', 'createManyAndReturn', 'upsert'])

type Args = Record<string, unknown>

function withTenant(data: unknown, tenantId: string): unknown {
  if (Array.isArray(data)) return data.map((row) => withTenant(row, tenantId))
  return { ...(data as Args), tenantId }
}

function scopeArgs(operation: string, args: Args | undefined, tenantId: string): Args {
  const scoped: Args = { ...(args ?? {}) }
  if (whereOperations.has(operation)) {
    scoped.where = { ...((scoped.where as Args | undefined) ?? {}), tenantId }
  }
  if (createOperations.has(operation)) {
    if (operation === 'upsert') scoped.create = withTenant(scoped.create, tenantId)
    else scoped.data = withTenant(scoped.data, tenantId)
  }
  return scoped
}

function createTenantDb(tenantId: string) {
  return db.$extends({
    name: 'tenant-scope',
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          if (!tenantOwnedModels.has(model)) return query(args)
          return query(scopeArgs(operation, args as Args, tenantId) as typeof args)
        },
      },
    },
  })
}

export type TenantDb = ReturnType<typeof createTenantDb>

const tenantDbs = new Map<string, TenantDb>()
const maxCachedTenants = 1_000

/** The Prisma client of one tenant: every read and write is confined to `tenantId`. */
export function tenantDb(tenantId: string): TenantDb {
  let scoped = tenantDbs.get(tenantId)
  if (!scoped) {
    if (tenantDbs.size >= maxCachedTenants) tenantDbs.clear()
    scoped = createTenantDb(tenantId)
    tenantDbs.set(tenantId, scoped)
  }
  return scoped
}

/** The unscoped client, for the few places that work across tenants (sign-in, token lookup, jobs). */
export function systemDb(): Database {
  return db
}
