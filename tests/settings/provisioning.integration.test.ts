import { spawn } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyPassword } from '../../lib/auth/passwords.ts'
import { authenticateContentKey } from '../../lib/content/content-keys.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'

// An operator provisions a newsroom from a shell, with no development seed: `npm run newsroom
// -- create` and `npm run content-keys`, run as the operator runs them (a child process on this
// file's database), and what they leave is what the service then sees.

const root = path.resolve(import.meta.dirname, '../..')

// Each command is a child process that loads tsx and the Prisma client: about a second alone, and
// 15 s a command was seen on a loaded CI machine. A test's limit is its commands' count times a
// generous budget each, so the wait scales with what it waits for.
const perCommandMs = 60_000
const within = (commands: number) => ({ timeout: commands * perCommandMs })

function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', script), ...args], {
      cwd: root,
      env: { ...process.env, NEXTAUTH_URL: 'https://newsroom.example' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('npm run newsroom -- create', () => {
  it('makes a newsroom and its first admin, who signs in with the password printed once; both are audited', within(1), async () => {
    const slug = `desk-${createId('ten').slice(-8).toLowerCase()}`
    const email = `chief@${slug}.example`
    const created = await run('newsroom.ts', ['create', '--slug', slug, '--name', 'The Desk', '--site', `https://${slug}.example`, '--admin', email, '--admin-name', 'Chief Editor'])
    expect(created.stderr).toContain('https://newsroom.example/signin')
    expect(created.code).toBe(0)
    const password = created.stdout.trim()
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/)

    const tenant = await db.tenant.findUniqueOrThrow({ where: { slug } })
    expect(tenant).toMatchObject({ name: 'The Desk', publicSiteUrl: `https://${slug}.example`, plan: 'standard' })
    const admin = await db.user.findUniqueOrThrow({ where: { email } })
    expect(admin).toMatchObject({ tenantId: tenant.id, role: 'admin', name: 'Chief Editor', active: true })
    // Stored only as a hash, and that hash takes the printed password.
    expect(admin.passwordHash).not.toContain(password)
    expect(await verifyPassword(admin.passwordHash, password)).toBe(true)

    const audit = await db.auditEntry.findMany({ where: { tenantId: tenant.id }, orderBy: { action: 'asc' } })
    expect(audit.map((entry) => [entry.action, entry.actorId, entry.targetId, (entry.metadata as { via?: string }).via])).toEqual([
      ['tenant.created', null, tenant.id, 'command_line'],
      ['user.created', null, admin.id, 'command_line'],
    ])
    const events = await db.event.findMany({ where: { tenantId: tenant.id } })
    expect(events.map((event) => [event.kind, (event.data as { user_id?: string }).user_id])).toEqual([['user.created', admin.id]])
  })

  it('refuses a taken slug, a taken address and a malformed slug, saying which, and creates nothing', within(5), async () => {
    const slug = `taken-${createId('ten').slice(-8).toLowerCase()}`
    expect((await run('newsroom.ts', ['create', '--slug', slug, '--admin', `first@${slug}.example`])).code).toBe(0)

    const sameSlug = await run('newsroom.ts', ['create', '--slug', slug, '--admin', `second@${slug}.example`])
    expect(sameSlug.code).toBe(1)
    expect(sameSlug.stderr).toContain(`slug: A newsroom with the slug '${slug}' exists already`)
    expect(sameSlug.stdout).toBe('')

    const sameAddress = await run('newsroom.ts', ['create', '--slug', `${slug}-2`, '--admin', `first@${slug}.example`])
    expect(sameAddress.code).toBe(1)
    expect(sameAddress.stderr).toContain('adminEmail: This e-mail address is already in use')
    expect(await db.tenant.count({ where: { slug: `${slug}-2` } })).toBe(0)

    const badSlug = await run('newsroom.ts', ['create', '--slug', 'Not A Slug!', '--admin', 'someone@example.com'])
    expect(badSlug.code).toBe(1)
    expect(badSlug.stderr).toContain('slug: A slug is 1 to 63 lower-case letters')

    const noAdmin = await run('newsroom.ts', ['create', '--slug', `${slug}-3`])
    expect(noAdmin.code).toBe(2)
    expect(noAdmin.stderr).toContain('--slug and --admin are required')
  })
})

describe('npm run content-keys', () => {
  it('creates a key that reads the newsroom, lists it, revokes it, and audits both changes', within(5), async () => {
    const slug = `keys-${createId('ten').slice(-8).toLowerCase()}`
    expect((await run('newsroom.ts', ['create', '--slug', slug, '--admin', `admin@${slug}.example`])).code).toBe(0)
    const tenant = await db.tenant.findUniqueOrThrow({ where: { slug } })

    const created = await run('content-keys.ts', ['create', '--tenant', slug, '--name', 'Public site'])
    expect(created.code).toBe(0)
    const key = created.stdout.trim()
    expect(key).toMatch(/^nrc_/)
    expect((await authenticateContentKey(key))?.id).toBe(tenant.id)

    const row = await db.contentKey.findFirstOrThrow({ where: { tenantId: tenant.id } })
    const listed = await run('content-keys.ts', ['list', '--tenant', slug])
    expect(listed.stdout).toContain(row.id)
    expect(listed.stdout).toContain('"Public site"')
    expect(listed.stdout).toContain('active')
    expect(listed.stdout).not.toContain(key)

    const revoked = await run('content-keys.ts', ['revoke', row.prefix])
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toContain(`Revoked ${row.id}`)
    expect((await db.contentKey.findUniqueOrThrow({ where: { id: row.id } })).revokedAt).not.toBeNull()
    expect((await run('content-keys.ts', ['list', '--tenant', slug])).stdout).toContain('revoked 20')

    const audit = await db.auditEntry.findMany({ where: { tenantId: tenant.id, targetId: row.id }, orderBy: { createdAt: 'asc' } })
    expect(audit.map((entry) => [entry.action, entry.actorId])).toEqual([['content_key.created', null], ['content_key.revoked', null]])
    // The revocation purges what shared caches kept for the newsroom, through the outbox.
    expect(await db.event.count({ where: { tenantId: tenant.id, kind: 'content.purge_requested' } })).toBe(1)
  })

  it('refuses an empty name and an unknown key, saying what to fix', within(4), async () => {
    const slug = `keys-${createId('ten').slice(-8).toLowerCase()}`
    expect((await run('newsroom.ts', ['create', '--slug', slug, '--admin', `admin@${slug}.example`])).code).toBe(0)
    const unnamed = await run('content-keys.ts', ['create', '--tenant', slug, '--name', '  '])
    expect(unnamed.code).toBe(1)
    expect(unnamed.stderr).toContain('name: name must not be empty.')
    const unknown = await run('content-keys.ts', ['revoke', 'nrc_nothing'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("No content key with id or prefix 'nrc_nothing'.")
    const noTenant = await run('content-keys.ts', ['list', '--tenant', 'no-such-newsroom'])
    expect(noTenant.stderr).toContain("No tenant with slug 'no-such-newsroom'.")
  })
})
