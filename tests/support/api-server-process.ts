/**
 * The /v1 route server (api-server.ts) as a process of its own, for fault tests that must
 * point the app at another database (lib/db/client.ts reads DATABASE_URL once, at first
 * import) or kill it outright. Prints one line, `ready <json>`, once it listens:
 * `{ url, tenant?, tenants? }`. With `--tenant` it first creates a test newsroom (fixtures.ts)
 * in that database and adds `{ id, token, departmentIds }` for an admin token of it; with
 * `--tenants=N` it creates N of them and adds them as `tenants`.
 *
 *   DATABASE_URL=... node --import tsx tests/support/api-server-process.ts [--tenant | --tenants=N]
 *
 * Spawn it with spawnApiServer (spawn-api-server.ts).
 */
import { startApiServer } from './api-server.ts'

if (!process.env.DATABASE_URL) {
  // Without it the client would fall back to the embedded database: never what a test means.
  console.error('api-server-process: DATABASE_URL must be set.')
  process.exit(2)
}

// Nothing started here may outlive its test: exit when the parent closes stdin (it ended or
// died), and in any case after a bound.
const maxLifetimeMs = Number(process.env.API_SERVER_PROCESS_MAX_MS ?? 180_000)
setTimeout(() => process.exit(3), maxLifetimeMs).unref()
process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()

type ServedTenant = { id: string; token: string; departmentIds: string[] }

async function createServedTenants(count: number): Promise<ServedTenant[]> {
  // Imported only now: fixtures.ts opens the database client, which must see DATABASE_URL.
  const { createTestTenant } = await import('./fixtures.ts')
  const tenants: ServedTenant[] = []
  for (let index = 0; index < count; index++) {
    const newsroom = await createTestTenant({ plan: 'enterprise' })
    tenants.push({ id: newsroom.tenant.id, token: await newsroom.token(['admin']), departmentIds: newsroom.departments.map((department) => department.id) })
  }
  return tenants
}

const tenantsArgument = process.argv.find((argument) => argument.startsWith('--tenants='))
const tenants = tenantsArgument ? await createServedTenants(Number(tenantsArgument.slice('--tenants='.length))) : undefined
const tenant = process.argv.includes('--tenant') ? (await createServedTenants(1))[0] : undefined

const server = await startApiServer()
// As the servers do (instrumentation.ts): the backfills run while the process serves.
const { startDataMigrationsInBackground } = await import('../../lib/db/data-migrations/background-data-migrations.ts')
void startDataMigrationsInBackground()
console.log(`ready ${JSON.stringify({ url: server.url, ...(tenant && { tenant }), ...(tenants && { tenants }) })}`)

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void server
      .close()
      .then(async () => (await import('../../lib/server/drain.ts')).drainBeforeExit())
      .finally(() => process.exit(0))
  })
}
