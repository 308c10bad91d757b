/**
 * What `npm run newsroom` (scripts/newsroom.ts) does once it has found its database: provisions
 * a newsroom with its first admin without the development seed, and moves a newsroom between
 * servers (export, import). The rules are lib/'s (lib/tenancy/create-newsroom.ts,
 * lib/portability); this file only reads the command line and prints.
 */
import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { db } from '../lib/db/client.ts'
import { exportNewsroom } from '../lib/portability/export-newsroom.ts'
import { importNewsroom } from '../lib/portability/import-newsroom.ts'
import { systemActor } from '../lib/tenancy/system-actor.ts'
import { parseInput } from '../lib/parse-input.ts'
import { createNewsroom } from '../lib/tenancy/create-newsroom.ts'
import { createNewsroomSchema } from '../lib/tenancy/newsroom-schemas.ts'
import { CliError, runCli } from './cli.ts'

const usage = `Usage:
  npm run newsroom -- create --slug <slug> --name <name> --site <https://…> --admin <email> [--admin-name <name>] [--plan standard|enterprise]
  npm run newsroom -- export --tenant <slug> > newsroom.ndjson
  npm run newsroom -- import [--tenant <new-slug>] [--file newsroom.ndjson] < newsroom.ndjson`

async function create(values: Record<string, string | undefined>) {
  if (!values.slug || !values.admin) throw new CliError(2, `--slug and --admin are required.\n${usage}`)
  const input = parseInput(createNewsroomSchema, {
    slug: values.slug,
    name: values.name ?? values.slug,
    publicSiteUrl: values.site ?? `https://${values.slug}.example`,
    plan: values.plan,
    adminEmail: values.admin,
    adminName: values['admin-name'] ?? values.admin.split('@')[0],
  })
  const { tenant, admin, password } = await createNewsroom(input)
  const signIn = `${(process.env.NEXTAUTH_URL ?? 'http://localhost:3000').replace(/\/$/, '')}/signin`
  console.error(`Created newsroom ${tenant.slug} (${tenant.id}) with its admin ${admin.email} (${admin.id}).`)
  console.error(`Sign in at ${signIn} as ${admin.email} with the password below. It is shown this once and stored only as a hash;`)
  console.error('change it after signing in (Settings → Security), and add a second factor.')
  console.log(password)
}

/** Streams the archive to stdout, waiting whenever the pipe is full: memory stays flat at any size. */
async function exportArchive(values: Record<string, string | undefined>) {
  if (!values.tenant) throw new CliError(2, `--tenant is required.\n${usage}`)
  const tenant = await db.tenant.findUnique({ where: { slug: values.tenant }, select: { id: true } })
  const actor = tenant && (await systemActor(tenant.id))
  if (!actor) throw new CliError(1, `No tenant with slug '${values.tenant}'.`)
  if (process.stdout.isTTY) throw new CliError(2, 'The archive goes to stdout: redirect it to a file (> newsroom.ndjson).')
  let lines = 0
  for await (const line of exportNewsroom(actor, 'command_line')) {
    lines++
    if (!process.stdout.write(line)) await once(process.stdout, 'drain')
  }
  console.error(`Exported ${actor.tenant.slug}: ${lines} lines, checksum in the last one.`)
}

async function importArchive(values: Record<string, string | undefined>) {
  const input = values.file ? createReadStream(values.file) : process.stdin
  const { tenant, counts, admin } = await importNewsroom(createInterface({ input, crlfDelay: Infinity }), { slug: values.tenant })
  console.error(`Imported ${tenant.slug} (${tenant.id}): ${Object.entries(counts).map(([table, n]) => `${n} ${table}`).join(', ')}.`)
  console.error('Webhook subscriptions are paused with new signing secrets: rotate each and share it with its receiver, then resume.')
  if (admin) {
    console.error(`Members have no password here yet. ${admin.email} signs in with the password below (shown this once); the others set theirs as the portal offers, or through SSO.`)
    console.log(admin.password)
  }
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      slug: { type: 'string' }, name: { type: 'string' }, site: { type: 'string' }, admin: { type: 'string' },
      'admin-name': { type: 'string' }, plan: { type: 'string' }, tenant: { type: 'string' }, file: { type: 'string' },
    },
  })
  const [command] = positionals
  if (command === 'create') await create(values)
  else if (command === 'export') await exportArchive(values)
  else if (command === 'import') await importArchive(values)
  else throw new CliError(2, usage)
}

export async function runNewsroomCommand(): Promise<void> {
  await runCli(main)
}
