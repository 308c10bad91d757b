/**
 * What `npm run newsroom` (scripts/newsroom.ts) does once it has found its database: provisions
 * a newsroom with its first admin without the development seed, and moves a newsroom between
 * servers (export, import). The rules are lib/'s (lib/tenancy/create-newsroom.ts,
 * lib/portability); this file only reads the command line and prints.
 */
import { parseArgs } from 'node:util'
import { parseInput } from '../lib/parse-input.ts'
import { createNewsroom } from '../lib/tenancy/create-newsroom.ts'
import { createNewsroomSchema } from '../lib/tenancy/newsroom-schemas.ts'
import { CliError, runCli } from './cli.ts'

const usage = `Usage:
  npm run newsroom -- create --slug <slug> --name <name> --site <https://…> --admin <email> [--admin-name <name>] [--plan standard|enterprise]
  npm run newsroom -- export --tenant <slug> > newsroom.ndjson
  npm run newsroom -- import --tenant <slug> < newsroom.ndjson`

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

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      slug: { type: 'string' }, name: { type: 'string' }, site: { type: 'string' }, admin: { type: 'string' },
      'admin-name': { type: 'string' }, plan: { type: 'string' }, tenant: { type: 'string' },
    },
  })
  const [command] = positionals
  if (command === 'create') await create(values)
  else throw new CliError(2, usage)
}

export async function runNewsroomCommand(): Promise<void> {
  await runCli(main)
}
