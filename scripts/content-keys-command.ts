/**
 * What `npm run content-keys` (scripts/content-keys.ts) does once it has found its database: the
 * portal's Settings → API Keys → Content keys, for an operator at a shell. The rules and the
 * audit entries are lib/content/content-keys.ts's; the command acts as the system (no user).
 */
import { parseArgs } from 'node:util'
import { createContentKey, listContentKeys, revokeContentKey } from '../lib/content/content-keys.ts'
import { createContentKeySchema } from '../lib/content/content-key-schemas.ts'
import { db } from '../lib/db/client.ts'
import { parseInput } from '../lib/parse-input.ts'
import { systemActor } from '../lib/tenancy/system-actor.ts'
import { CliError, runCli } from './cli.ts'

const usage = `Usage:
  npm run content-keys -- create --tenant <slug> --name <name>
  npm run content-keys -- list --tenant <slug>
  npm run content-keys -- revoke <key-id-or-prefix>`

async function actorFor(slug: string | undefined) {
  if (!slug) throw new CliError(2, `--tenant is required.\n${usage}`)
  const tenant = await db.tenant.findUnique({ where: { slug }, select: { id: true } })
  const actor = tenant && (await systemActor(tenant.id))
  if (!actor) throw new CliError(1, `No tenant with slug '${slug}'.`)
  return actor
}

async function create(values: Record<string, string | undefined>) {
  const actor = await actorFor(values.tenant)
  const { name } = parseInput(createContentKeySchema, { name: values.name ?? '' })
  const { key, summary } = await createContentKey(actor, name)
  console.error(`Created content key ${summary.id} "${summary.name}" for ${actor.tenant.slug}. It reads published articles only, and may be embedded in the site's pages.`)
  console.error('This is the only time the key is shown; store it now:')
  console.log(key)
}

async function list(values: Record<string, string | undefined>) {
  const actor = await actorFor(values.tenant)
  const keys = await listContentKeys(actor)
  if (keys.length === 0) console.log(`${actor.tenant.slug} has no content keys.`)
  for (const key of keys) {
    console.log([key.id, `${key.prefix}…`, JSON.stringify(key.name), `created ${key.createdAt.toISOString()}`, key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'].join('  '))
  }
}

async function revoke(idOrPrefix: string | undefined) {
  if (!idOrPrefix) throw new CliError(2, usage)
  const matches = await db.contentKey.findMany({ where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }] }, select: { id: true, tenantId: true } })
  if (matches.length === 0) throw new CliError(1, `No content key with id or prefix '${idOrPrefix}'.`)
  if (matches.length > 1) throw new CliError(1, `'${idOrPrefix}' matches ${matches.length} content keys; use the id.`)
  const actor = await systemActor(matches[0]!.tenantId)
  if (!actor) throw new CliError(1, `No tenant ${matches[0]!.tenantId}.`)
  const summary = await revokeContentKey(actor, matches[0]!.id)
  // Instances keep a looked-up key for at most 5 s (content-keys.ts); shared caches are purged through the outbox.
  console.log(`Revoked ${summary.id} "${summary.name}" (${summary.prefix}…) at ${summary.revokedAt?.toISOString()}; every instance refuses it within 5 seconds, and cached pages are purged.`)
}

async function main() {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { tenant: { type: 'string' }, name: { type: 'string' } } })
  const [command, argument] = positionals
  if (command === 'create') await create(values)
  else if (command === 'list') await list(values)
  else if (command === 'revoke') await revoke(argument)
  else throw new CliError(2, usage)
}

export async function runContentKeysCommand(): Promise<void> {
  await runCli(main)
}
