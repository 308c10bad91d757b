import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { db, sqlPool } from '../../lib/db/client.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { exportNewsroom } from '../../lib/portability/export-newsroom.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { databaseUrl, templateDatabaseName, testDatabaseUrl } from '../support/test-env.ts'

// Found by the issue-49 tester: a newsroom archive as an admin takes it from a live newsroom
// (the portal's Settings → Export while editors work), and as an operator imports it under a
// new slug typed by hand.

const root = path.resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-archive-break-'))
const otherName = `newsroom_other_${randomBytes(5).toString('hex')}`
const otherUrl = databaseUrl(otherName)
const mediaDirs = { source: path.join(dir, 'media-source'), other: path.join(dir, 'media-other') }
const storeEnv = (mediaDir: string) => ({ MEDIA_DIR: mediaDir, MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' })
let newsroom: TestTenant

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/newsroom.ts'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  await withClient(testDatabaseUrl, async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${otherName} TEMPLATE ${templateDatabaseName}`)
        break
      } catch (error) {
        if (attempt >= 20) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
      }
    }
  })
  for (const mediaDir of Object.values(mediaDirs)) mkdirSync(mediaDir, { recursive: true })
  stubEnv(storeEnv(mediaDirs.source))
  resetMediaStore()
  newsroom = await createTestTenant()
  for (let i = 0; i < 3; i++) await createArticle(newsroom.actor('writer'), { headline: `Story ${i}`, body: '<p>Text</p>' })
}, setupBackstopMs)

afterAll(async () => {
  vi.unstubAllEnvs()
  resetMediaStore()
  rmSync(dir, { recursive: true, force: true })
  await withClient(testDatabaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${otherName} WITH (FORCE)`))
})

type Line = { type: string; table?: string; row?: Record<string, unknown> }

/** A portal session that confirmed it's you a moment ago (sudo mode), as Settings → Export makes sure. */
const justConfirmed = { portalSession: { id: 'pts_test', reauthenticatedAt: new Date() } } as const

describe('a newsroom archive taken from a live newsroom', () => {
  it('is one consistent moment: an article written while the export runs is wholly in it or wholly out of it, and the archive imports', async () => {
    const lines: string[] = []
    const exporting = exportNewsroom(newsroom.actor('admin'), justConfirmed)
    // The admin's download has sent the articles; a writer saves a new story meanwhile.
    for (;;) {
      const { value, done } = await exporting.next()
      if (done) throw new Error('the export ended before its articles')
      lines.push(value)
      if (value.startsWith('{"type":"row","table":"articles"')) break
    }
    await createArticle(newsroom.actor('writer'), { headline: 'Written during the export', body: '<p>Late</p>' })
    for await (const line of exporting) lines.push(line)

    const parsed = lines.map((line) => JSON.parse(line) as Line)
    const articleIds = new Set(parsed.filter((line) => line.table === 'articles').map((line) => line.row!.id))
    const orphans = parsed.filter((line) => (line.table === 'article_revisions' || line.table === 'article_transitions') && !articleIds.has(line.row!.article_id))
    expect(orphans.map((line) => `${line.table} of article ${String(line.row!.article_id)}`)).toEqual([])

    const archive = path.join(dir, 'live.ndjson')
    writeFileSync(archive, lines.join(''))
    const imported = await run(['import', '--file', archive], { DATABASE_URL: otherUrl, ...storeEnv(mediaDirs.other) })
    expect(imported.stderr).toContain(`Imported ${newsroom.tenant.slug}`)
    expect(imported.code).toBe(0)
  }, 120_000)
})

describe('importing under a new slug', () => {
  it('stores the slug as the slug rules spell it (trimmed, lower case), so the newsroom can be found by it', async () => {
    const source = createTestTenant()
    const other = await source
    const archive = path.join(dir, 'renamed.ndjson')
    const lines: string[] = []
    for await (const line of exportNewsroom(other.actor('admin'), 'command_line')) lines.push(line)
    writeFileSync(archive, lines.join(''))
    // The operator types the new slug as the newsroom writes its name.
    const imported = await run(['import', '--tenant', 'Moved-Planet', '--file', archive], { DATABASE_URL: otherUrl, ...storeEnv(mediaDirs.other) })
    expect(imported.code).toBe(0)
    const stored = await withClient(otherUrl, (client) => client.query<{ slug: string }>('SELECT slug FROM tenants WHERE id = $1', [other.tenant.id]))
    expect(stored.rows[0]?.slug).toBe('moved-planet')
    expect(readFileSync(archive, 'utf8').length).toBeGreaterThan(0)
  }, 120_000)
})

describe('a newsroom that arrives with a scheduled publication', () => {
  it("publishes it on the new server: the scheduled run waits in the new server's outbox, not marked as sent", async () => {
    const moving = await createTestTenant()
    const editor = moving.actor('editor')
    const article = await createArticle(editor, { headline: 'Embargoed until tomorrow', status: 'in-review' })
    await transitionArticle(editor, article.id, { to_state: 'approved' })
    const publishAt = new Date(Date.now() + 86_400_000).toISOString()
    await transitionArticle(editor, article.id, { to_state: 'published', publish_at: publishAt })
    const archive = path.join(dir, 'scheduled.ndjson')
    const lines: string[] = []
    for await (const line of exportNewsroom(moving.actor('admin'), 'command_line')) lines.push(line)
    writeFileSync(archive, lines.join(''))

    const imported = await run(['import', '--file', archive], { DATABASE_URL: otherUrl, ...storeEnv(mediaDirs.other) })
    expect(imported.code).toBe(0)
    // On the old server Inngest held a run sleeping until publish_at; the new server's Inngest has
    // none, and only an unsent article.publish_scheduled event makes its outbox start one.
    const waiting = await withClient(otherUrl, (client) =>
      client.query(`SELECT id FROM events WHERE tenant_id = $1 AND kind = 'article.publish_scheduled' AND data->>'article_id' = $2 AND sent_to_queue_at IS NULL`, [moving.tenant.id, article.id]),
    )
    expect(waiting.rowCount, 'publish_scheduled events waiting for the new server\'s queue').toBe(1)
  }, 120_000)
})

describe("the restore runbook's second way: copy what was lost out of the restored database", () => {
  it('is refused on the live server that still holds the newsroom, saying why and where the runbook goes instead, and a new slug does not get round it', async () => {
    // docs/deploy.md, "Restoring a backup to a point in time", step 6. The restored copy holds the
    // same newsroom, same ids and members, as the live server, which still has it (a bad bulk
    // change damaged its articles; nothing deleted it). The refusal once suggested
    // `--tenant <new-slug>`, which was refused the same way: an archive keeps its ids.
    const live = await createTestTenant()
    await createArticle(live.actor('writer'), { headline: 'Before the bad bulk change', body: '<p>Kept</p>' })
    const archive = path.join(dir, 'from-restored.ndjson')
    const lines: string[] = []
    for await (const line of exportNewsroom(live.actor('admin'), 'command_line')) lines.push(line)
    writeFileSync(archive, lines.join(''))

    const first = await run(['import', '--file', archive], storeEnv(mediaDirs.source))
    expect(first.code).toBe(1)
    expect(first.stderr).toContain(`This server holds this newsroom already (id ${live.tenant.id})`)
    expect(first.stderr).toContain('Restoring a backup to a point in time')
    expect(first.stderr).not.toContain('--tenant')
    const renamed = await run(['import', '--tenant', `${live.tenant.slug}-recovered`, '--file', archive], storeEnv(mediaDirs.source))
    expect(renamed.code).toBe(1)
    expect(renamed.stderr).toContain('another slug does not change that')
    expect(await db.tenant.count({ where: { slug: `${live.tenant.slug}-recovered` } })).toBe(0)
    // The runbook names the route that works: the API of an instance on the restored database.
    const runbook = readFileSync('docs/deploy.md', 'utf8')
    expect(runbook).toContain('never over the live newsroom')
  }, 120_000)
})

describe('an export the admin stops once the articles have arrived', () => {
  it("is in the newsroom's audit log all the same, naming who took it", async () => {
    // The portal's download is a stream: a client that closes it after the rows (before the end
    // line) has every article. The audit entry was written only after the end line.
    const watched = await createTestTenant()
    await createArticle(watched.actor('writer'), { headline: 'Unpublished investigation', body: '<p>Sources</p>' })
    const admin = watched.actor('admin')
    const exporting = exportNewsroom(admin, justConfirmed)
    for (;;) {
      const { value, done } = await exporting.next()
      if (done) throw new Error('the export ended before its articles')
      if (value.startsWith('{"type":"row","table":"articles"')) break
    }
    // The browser's connection closes: the route's ReadableStream cancel() returns the generator.
    await exporting.return(undefined)
    const entries = await db.auditEntry.findMany({ where: { tenantId: watched.tenant.id, action: { startsWith: 'tenant.export' } } })
    expect(entries.map((entry) => ({ action: entry.action, actorId: entry.actorId }))).toEqual([{ action: expect.stringMatching(/^tenant\.export/), actorId: watched.users.admin.id }])
  }, 60_000)
})

describe('an archive from a newer release', () => {
  it('is refused, naming what this server cannot hold, rather than loaded without those fields', async () => {
    // The newer release added a column (expand: nullable) and the newsroom filled it; this server
    // runs the release before (the other database is the migrated template, without it).
    const newer = await createTestTenant()
    const article = await createArticle(newer.actor('writer'), { headline: 'With a standfirst' })
    await withClient(process.env.DATABASE_URL!, async (client) => {
      await client.query('ALTER TABLE articles ADD COLUMN standfirst text')
      await client.query(`UPDATE articles SET standfirst = 'Only in the newer release' WHERE id = $1`, [article.id])
    })
    const archive = path.join(dir, 'newer.ndjson')
    const lines: string[] = []
    try {
      for await (const line of exportNewsroom(newer.actor('admin'), 'command_line')) lines.push(line)
    } finally {
      await withClient(process.env.DATABASE_URL!, (client) => client.query('ALTER TABLE articles DROP COLUMN standfirst'))
    }
    expect(lines.join('')).toContain('Only in the newer release')
    writeFileSync(archive, lines.join(''))
    const imported = await run(['import', '--file', archive], { DATABASE_URL: otherUrl, ...storeEnv(mediaDirs.other) })
    expect(imported.code).toBe(1)
    expect(imported.stderr).toContain('standfirst')
    const loaded = await withClient(otherUrl, (client) => client.query('SELECT 1 FROM tenants WHERE id = $1', [newer.tenant.id]))
    expect(loaded.rowCount).toBe(0)
  }, 120_000)
})

describe('exports paused by slow downloads', () => {
  it("leave the instance's shared connections to its requests", async () => {
    // Each export holds one snapshot for as long as its download lasts; admins' browsers may
    // pause reading. As many paused exports as the pool has connections, then a request's query.
    const paused = await createTestTenant()
    const size = (sqlPool.options as { max?: number }).max ?? 10
    const exports = Array.from({ length: size }, () => exportNewsroom(paused.actor('admin'), justConfirmed))
    try {
      for (const exporting of exports) {
        for (;;) {
          const { value, done } = await exporting.next()
          if (done || value.startsWith('{"type":"row"')) break
        }
      }
      const answered = await Promise.race([
        sqlPool.query('SELECT 1 AS one').then((result) => result.rows[0]?.one as number),
        new Promise<string>((resolve) => setTimeout(() => resolve('no connection within 3 s'), 3_000)),
      ])
      expect(answered).toBe(1)
    } finally {
      await Promise.all(exports.map((exporting) => exporting.return(undefined)))
    }
  }, 60_000)
})
