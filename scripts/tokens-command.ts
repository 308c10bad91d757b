/**
 * What `npm run tokens` (scripts/tokens.ts) does once it has found its database:
 * npm run tokens -- create --tenant <slug> --name <name> --scopes <a,b> [--owner <email>] [--expires 30|90|365|YYYY-MM-DD] [--allow <cidr,cidr>]
 * npm run tokens -- roll <token-prefix-or-id> --overlap none|1h|24h|7d
 * npm run tokens -- rename <token-prefix-or-id> --name <name>
 * npm run tokens -- allow <token-prefix-or-id> --allow <cidr,cidr>   (an empty list admits any address)
 * npm run tokens -- revoke <token-prefix-or-id>
 * npm run tokens -- list --tenant <slug>
 */
import { parseArgs } from 'node:util'
import { db } from '../lib/db/client.ts'
import { createApiToken, isRotationRecommended, listApiTokens, renameApiToken, revokeApiToken, rollApiToken, setApiTokenAllowlist } from '../lib/tokens/api-tokens.ts'
import { CliError, runCli } from './cli.ts'
import { parseInput } from '../lib/parse-input.ts'
import { createApiTokenSchema, renameApiTokenSchema, rollApiTokenSchema, setApiTokenAllowlistSchema } from '../lib/tokens/api-token-schemas.ts'
import { systemActor } from '../lib/tenancy/system-actor.ts'

const usage = `Usage:
  npm run tokens -- create --tenant <slug> --name <name> --scopes <a,b> [--owner <email>] [--expires 30|90|365|YYYY-MM-DD] [--allow <cidr,cidr>]
  npm run tokens -- roll <token-prefix-or-id> --overlap none|1h|24h|7d
  npm run tokens -- rename <token-prefix-or-id> --name <name>
  npm run tokens -- allow <token-prefix-or-id> --allow <cidr,cidr>
  npm run tokens -- revoke <token-prefix-or-id>
  npm run tokens -- list --tenant <slug>`

/** The CLI acts as the system (no user): its changes are audited without a name. */
async function actingAsSystem(tenantId: string) {
  const actor = await systemActor(tenantId)
  if (!actor) throw new CliError(1, `No tenant ${tenantId}.`)
  return actor
}

async function findTenant(slug: string | undefined) {
  if (!slug) throw new CliError(2, `--tenant is required.\n${usage}`)
  const tenant = await db.tenant.findUnique({ where: { slug } })
  if (!tenant) throw new CliError(1, `No tenant with slug '${slug}'.`)
  return tenant
}

async function create(values: Record<string, string | undefined>) {
  const tenant = await findTenant(values.tenant)
  if (!values.name || !values.scopes) throw new CliError(2, `--name and --scopes are required.\n${usage}`)
  const owner = values.owner
    ? await db.user.findFirst({ where: { tenantId: tenant.id, email: values.owner.toLowerCase() } })
    : await db.user.findFirst({ where: { tenantId: tenant.id, role: 'admin', active: true }, orderBy: { createdAt: 'asc' } })
  if (!owner) throw new CliError(1, values.owner ? `No user ${values.owner} in ${tenant.slug}.` : `${tenant.slug} has no active admin to own the token.`)
  const expires = values.expires
  const expiry = !expires ? {} : /^\d{4}-\d{2}-\d{2}$/.test(expires) ? { expiry: 'date', expiryDate: expires } : { expiry: expires }
  const key = parseInput(createApiTokenSchema, { name: values.name, scopes: values.scopes.split(',').map((scope) => scope.trim()).filter(Boolean), ...expiry, allowedAddresses: values.allow ?? '' })
  const { token, summary } = await createApiToken(await actingAsSystem(tenant.id), { ...key, ownerId: owner.id })
  console.error(`Created ${summary.id} "${summary.name}" for ${tenant.slug}, owned by ${owner.email}, scopes ${summary.scopes.join(',')}${bounds(summary)}.`)
  console.error('This is the only time the token is shown; store it now:')
  console.log(token)
}

function bounds(summary: { expiresAt: Date | null; allowedAddresses: string[] }): string {
  return `${summary.expiresAt ? `, expires ${summary.expiresAt.toISOString()}` : ''}${summary.allowedAddresses.length ? `, only from ${summary.allowedAddresses.join(',')}` : ''}`
}

/** The one key an id or display prefix names, and the system actor of its newsroom. */
async function findKey(idOrPrefix: string | undefined) {
  if (!idOrPrefix) throw new CliError(2, usage)
  const matches = await db.apiToken.findMany({ where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }] }, select: { id: true, tenantId: true } })
  if (matches.length === 0) throw new CliError(1, `No token with id or prefix '${idOrPrefix}'.`)
  if (matches.length > 1) throw new CliError(1, `'${idOrPrefix}' matches ${matches.length} tokens; use the id.`)
  return { id: matches[0]!.id, actor: await actingAsSystem(matches[0]!.tenantId) }
}

async function roll(idOrPrefix: string | undefined, values: Record<string, string | undefined>) {
  const key = await findKey(idOrPrefix)
  const input = parseInput(rollApiTokenSchema, { id: key.id, overlap: values.overlap })
  const { token, summary } = await rollApiToken(key.actor, input)
  const until = summary.previousSecretWorksUntil ? `until ${summary.previousSecretWorksUntil.toISOString()}` : 'no longer (overlap none)'
  console.error(`Rolled ${summary.id} "${summary.name}": the old secret works ${until}. This is the only time the new one is shown; store it now:`)
  console.log(token)
}

async function rename(idOrPrefix: string | undefined, values: Record<string, string | undefined>) {
  const key = await findKey(idOrPrefix)
  const summary = await renameApiToken(key.actor, parseInput(renameApiTokenSchema, { id: key.id, name: values.name ?? '' }))
  console.log(`Renamed ${summary.id} to "${summary.name}".`)
}

async function allow(idOrPrefix: string | undefined, values: Record<string, string | undefined>) {
  const key = await findKey(idOrPrefix)
  const summary = await setApiTokenAllowlist(key.actor, parseInput(setApiTokenAllowlistSchema, { id: key.id, allowedAddresses: values.allow ?? '' }))
  console.log(`${summary.id} "${summary.name}" ${summary.allowedAddresses.length ? `now admits only ${summary.allowedAddresses.join(', ')}` : 'now admits any address'}.`)
}

async function revoke(idOrPrefix: string | undefined) {
  const key = await findKey(idOrPrefix)
  const summary = await revokeApiToken(key.actor, key.id)
  console.log(`Revoked ${summary.id} "${summary.name}" (${summary.prefix}…) at ${summary.revokedAt?.toISOString()}.`)
}

async function list(values: Record<string, string | undefined>) {
  const tenant = await findTenant(values.tenant)
  // The command line acts as the system (no user): it may read every key.
  const tokens = await listApiTokens({ tenant, user: null })
  if (tokens.length === 0) console.log(`${tenant.slug} has no API tokens.`)
  for (const token of tokens) {
    const state = token.revokedAt
      ? `revoked ${token.revokedAt.toISOString()}`
      : token.expired
        ? `expired ${token.expiresAt!.toISOString()}`
        : isRotationRecommended(token.rolledAt ?? token.createdAt) ? 'active, rotation recommended' : 'active'
    const extras = [
      token.expiresAt && !token.expired ? `expires ${token.expiresAt.toISOString()}` : null,
      token.allowedAddresses.length ? `only from ${token.allowedAddresses.join(',')}` : null,
      token.previousSecretWorksUntil ? `old secret works until ${token.previousSecretWorksUntil.toISOString()}` : null,
    ].filter(Boolean)
    console.log([token.id, `${token.prefix}…`, JSON.stringify(token.name), token.scopes.join(','), `owner ${token.ownerName}`, `created ${token.createdAt.toISOString()}`, `last used ${token.lastUsedAt?.toISOString() ?? 'never'}`, state, ...extras].join('  '))
  }
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      tenant: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, owner: { type: 'string' },
      expires: { type: 'string' }, allow: { type: 'string' }, overlap: { type: 'string' },
    },
  })
  const [command, argument] = positionals
  if (command === 'create') await create(values)
  else if (command === 'revoke') await revoke(argument)
  else if (command === 'roll') await roll(argument, values)
  else if (command === 'rename') await rename(argument, values)
  else if (command === 'allow') await allow(argument, values)
  else if (command === 'list') await list(values)
  else throw new CliError(2, usage)
}

/** Runs the command the arguments name; a refusal is printed and sets the exit code. */
export async function runTokensCommand(): Promise<void> {
  await runCli(main)
}
