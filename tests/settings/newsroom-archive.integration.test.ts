import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { addArticleNote } from '../../lib/articles/article-notes.ts'
import { restoreRevision } from '../../lib/articles/article-revisions.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { verifyPassword } from '../../lib/auth/passwords.ts'
import { db } from '../../lib/db/client.ts'
import { transitionArticleSchema } from '../../lib/articles/article-schemas.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createTestTenant, subscribeTo, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadThroughDomain } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'
import { databaseUrl, templateDatabaseName, testDatabaseUrl } from '../support/test-env.ts'

// A newsroom leaves this server and arrives on another: `npm run newsroom -- export` to a file,
// `import` of that file into another database (a copy of the migrated template, as a new
// server's), both as the operator runs them. Every row the archive carries is compared column by
// column in both databases; what it must not carry (password hashes, webhook secrets) is not in
// the file; and a damaged archive loads nothing. Each server has its own media store (a disk
// store under its own directory): the newsroom's originals travel in the archive and arrive
// byte for byte in the other server's store.

const root = path.resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-archive-'))
const otherName = `newsroom_other_${randomBytes(5).toString('hex')}`
const otherUrl = databaseUrl(otherName)
// A third server, that never received the newsroom: the damaged archives are offered there.
const thirdName = `newsroom_third_${randomBytes(5).toString('hex')}`
const thirdUrl = databaseUrl(thirdName)
let newsroom: TestTenant
const mediaDirs = { source: path.join(dir, 'media-source'), other: path.join(dir, 'media-other'), third: path.join(dir, 'media-third') }
const storeEnv = (mediaDir: string) => ({ MEDIA_DIR: mediaDir, MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' })
let images: { id: string; storageKey: string; bytes: Buffer }[] = []

/** Every file under a media store's directory, by key. */
function storedKeys(mediaDir: string): string[] {
  if (!existsSync(mediaDir)) return []
  return (readdirSync(mediaDir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(mediaDir, path.join(entry.parentPath, entry.name)))
    .sort()
}

function run(args: string[], env: Record<string, string>, stdoutFile?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/newsroom.ts'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('exit', (code) => {
      if (stdoutFile) writeFileSync(stdoutFile, stdout)
      resolve({ code, stdout, stderr })
    })
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

/** Every row of the newsroom's archived tables, as the database holds them (derived columns aside). */
async function newsroomRows(url: string, tenantId: string) {
  return withClient(url, async (client) => {
    const tables = ['tenants', 'users', 'departments', 'media', 'articles', 'article_revisions', 'article_transitions', 'article_notes', 'webhook_subscriptions', 'events', 'audit_entries']
    const out: Record<string, Record<string, unknown>[]> = {}
    for (const table of tables) {
      const column = table === 'tenants' ? 'id' : 'tenant_id'
      const { rows } = await client.query(`SELECT to_jsonb(t) - 'password_hash' - 'secret_encrypted' - 'change_xid' - 'status_for_compare' AS row FROM ${table} t WHERE ${column} = $1 ORDER BY id`, [tenantId])
      out[table] = rows.map((row) => row.row as Record<string, unknown>)
    }
    return out
  })
}

beforeAll(async () => {
  await withClient(testDatabaseUrl, async (client) => {
    for (const name of [otherName, thirdName]) {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName}`)
          break
        } catch (error) {
          if (attempt >= 20) throw error
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
        }
      }
    }
  })
  for (const mediaDir of Object.values(mediaDirs)) mkdirSync(mediaDir, { recursive: true })
  stubEnv(storeEnv(mediaDirs.source))
  resetMediaStore()
  newsroom = await createTestTenant()
  const editor = newsroom.actor('editor')
  // Two originals: a camera JPEG with its EXIF, and a noisy PNG of ~700 KB that spans several chunks.
  const photo = await cameraJpeg({ width: 1600, height: 900, seed: 3 })
  const noise = await sharp({ create: { width: 480, height: 480, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer()
  const uploaded = [
    await uploadThroughDomain(editor, photo, { alt_text: 'Boats at dusk', focal_point: { x: 0.3, y: 0.6 }, rights: { usage_terms: 'Harbour Press, one use' } }),
    await uploadThroughDomain(newsroom.actor('writer'), noise, { filename: 'noise.png' }),
  ]
  images = uploaded.map(({ media }, i) => ({ id: media.id, storageKey: media.storageKey, bytes: [photo, noise][i]! }))
  const first = await createArticle(editor, { headline: 'Harbour vote', lede: 'The board decides', body: `<p>Tonight.</p><figure data-media-id="${images[1]!.id}"></figure>`, department_id: newsroom.departments[0]!.id, tags: ['local', 'Harbour'], featured_media_id: images[0]!.id })
  await updateArticle(editor, first.id, { headline: 'Harbour vote delayed' })
  await updateArticle(editor, first.id, { body: '<p>Next week.</p>' })
  const revisions = await db.articleRevision.findMany({ where: { articleId: first.id }, orderBy: { number: 'asc' } })
  await restoreRevision(editor, first.id, revisions[0]!.id)
  await transitionArticle(editor, first.id, parseInput(transitionArticleSchema, { to_state: 'in-review', note: 'Ready for a look' }))
  await addArticleNote(editor, first.id, 'Check the quote')
  for (let i = 0; i < 7; i++) await createArticle(newsroom.actor('writer'), { headline: `Story ${i}`, tags: [`t${i}`] })
  await subscribeTo(newsroom, ['article.published'])
}, setupBackstopMs)

afterAll(async () => {
  vi.unstubAllEnvs()
  resetMediaStore()
  rmSync(dir, { recursive: true, force: true })
  await withClient(testDatabaseUrl, async (client) => {
    for (const name of [otherName, thirdName]) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })
})

describe('a newsroom archive', () => {
  it('round-trips into another database with every id, relation and field, and no secrets', async () => {
    const archive = path.join(dir, 'newsroom.ndjson')
    const exported = await run(['export', '--tenant', newsroom.tenant.slug], {}, archive)
    expect(exported.stderr).toContain(`Exported ${newsroom.tenant.slug}`)
    expect(exported.code).toBe(0)

    const text = readFileSync(archive, 'utf8')
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; table?: string; counts?: Record<string, number>; id?: string; sha256?: string; bytes?: number })
    const totalBytes = images.reduce((sum, image) => sum + image.bytes.length, 0)
    expect(lines[0]).toMatchObject({ type: 'manifest', format: 'newsroom-archive', version: 1, tenant: { id: newsroom.tenant.id }, media: { files: 2, bytes: totalBytes } })
    expect(lines.at(-1)).toMatchObject({ type: 'end', counts: { articles: 8, users: 3, departments: 2, webhook_subscriptions: 1, media: 2 }, files: 2 })
    // Each original's header carries its size and SHA-256; the noisy PNG spans several chunks.
    for (const image of images) {
      expect(lines.find((line) => line.type === 'media' && line.id === image.id)).toMatchObject({ bytes: image.bytes.length, sha256: createHash('sha256').update(image.bytes).digest('hex') })
    }
    expect(lines.filter((line) => line.type === 'media_chunk' && line.id === images[1]!.id).length).toBeGreaterThan(1)
    for (const secret of ['password_hash', 'secret_encrypted', '$argon2']) expect(text.includes(secret), secret).toBe(false)

    const before = await newsroomRows(process.env.DATABASE_URL!, newsroom.tenant.id)
    // No renditions have been rendered at the source; the target must hold exactly the originals.
    expect(storedKeys(mediaDirs.other)).toEqual([])
    const imported = await run(['import', '--file', archive], { DATABASE_URL: otherUrl, ...storeEnv(mediaDirs.other) })
    expect(imported.stderr).toContain(`Imported ${newsroom.tenant.slug}`)
    expect(imported.code).toBe(0)
    const after = await newsroomRows(otherUrl, newsroom.tenant.id)

    // Field by field: every row as it was, but what the import changes on purpose.
    const auditImported = after.audit_entries!.filter((row) => row.action === 'tenant.imported')
    expect(auditImported).toHaveLength(1)
    const strip = (rows: Record<string, unknown>[], fields: string[]) => rows.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !fields.includes(key))))
    for (const table of Object.keys(before)) {
      const changed = table === 'webhook_subscriptions' ? ['status', 'previous_secret_expires_at'] : table === 'events' ? ['sent_to_queue_at'] : []
      const beforeRows = table === 'audit_entries' ? before[table]!.filter((row) => row.action !== 'tenant.exported') : before[table]!
      const afterRows = table === 'audit_entries' ? after[table]!.filter((row) => row.action !== 'tenant.imported' && row.action !== 'tenant.exported') : after[table]!
      expect(strip(afterRows, changed), table).toEqual(strip(beforeRows, changed))
    }
    expect(before.article_revisions!.length).toBeGreaterThanOrEqual(4)
    expect(before.article_revisions!.some((row) => row.restored_from_revision_id)).toBe(true)
    expect(after.webhook_subscriptions![0]).toMatchObject({ status: 'paused' })
    expect(after.events!.every((row) => row.sent_to_queue_at !== null)).toBe(true)
    expect(after.media!.map((row) => row.id)).toEqual(images.map((image) => image.id).sort())
    expect(after.articles!.find((row) => row.featured_media_id)).toMatchObject({ featured_media_id: images[0]!.id, media_ids: expect.arrayContaining([images[0]!.id, images[1]!.id]) })

    // The originals, byte for byte, in the other server's store under the same keys; no renditions
    // travelled (the new server renders them on first request), and each original still decodes to
    // the size its record says.
    expect(storedKeys(mediaDirs.other)).toEqual(images.map((image) => image.storageKey).sort())
    for (const image of images) {
      const arrived = readFileSync(path.join(mediaDirs.other, image.storageKey))
      expect(arrived.equals(image.bytes), image.storageKey).toBe(true)
      const record = after.media!.find((row) => row.id === image.id)!
      expect(await sharp(arrived).metadata()).toMatchObject({ width: record.width, height: record.height })
    }

    // The search index and counts are derived again on the new server.
    const found = await withClient(otherUrl, (client) => client.query(`SELECT id FROM articles WHERE tenant_id = $1 AND search_vector @@ plainto_tsquery('simple', 'harbour')`, [newsroom.tenant.id]))
    expect(found.rowCount).toBe(1)
    const counted = await withClient(otherUrl, (client) => client.query<{ n: string }>(`SELECT coalesce(sum(n), 0)::text AS n FROM article_counts WHERE tenant_id = $1 AND grain = 'u'`, [newsroom.tenant.id]))
    expect(Number(counted.rows[0]!.n)).toBe(8)

    // The first admin signs in on the new server with the password printed once; the others cannot yet.
    const password = imported.stdout.trim()
    const users = await withClient(otherUrl, (client) => client.query<{ email: string; password_hash: string }>(`SELECT email, password_hash FROM users WHERE tenant_id = $1`, [newsroom.tenant.id]))
    const admin = users.rows.find((row) => row.email === newsroom.users.admin.email)!
    expect(await verifyPassword(admin.password_hash, password)).toBe(true)
    const writer = users.rows.find((row) => row.email === newsroom.users.writer.email)!
    expect(await verifyPassword(writer.password_hash, 'test-password')).toBe(false)

    // Importing again into the same server is refused, and changes nothing.
    const again = await run(['import', '--file', archive], { DATABASE_URL: otherUrl, ...storeEnv(mediaDirs.other) })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('This server holds this newsroom already')
    expect(storedKeys(mediaDirs.other)).toEqual(images.map((image) => image.storageKey).sort())
  }, 400_000)

  it('loads nothing from an archive that was cut short or altered', async () => {
    const archive = path.join(dir, 'cut.ndjson')
    expect((await run(['export', '--tenant', newsroom.tenant.slug], {}, archive)).code).toBe(0)
    const lines = readFileSync(archive, 'utf8').trim().split('\n')
    const renamed = { DATABASE_URL: thirdUrl, ...storeEnv(mediaDirs.third) }

    writeFileSync(path.join(dir, 'short.ndjson'), lines.slice(0, -3).join('\n') + '\n')
    const short = await run(['import', '--tenant', 'cut-short', '--file', path.join(dir, 'short.ndjson')], renamed)
    expect(short.code).toBe(1)
    expect(short.stderr).toContain('without its end line: it was cut short. Nothing was imported.')

    const altered = lines.map((line) => line.replace('Harbour vote delayed', 'Harbour vote cancelled'))
    writeFileSync(path.join(dir, 'altered.ndjson'), altered.join('\n') + '\n')
    const changed = await run(['import', '--tenant', 'altered', '--file', path.join(dir, 'altered.ndjson')], renamed)
    expect(changed.code).toBe(1)
    expect(changed.stderr).toContain('does not match its checksum')

    // An original whose bytes changed in transit (one base64 character of the PNG's second chunk):
    // refused for the file's own checksum, whatever the trailer says.
    let flipped = false
    const damaged = lines.map((line) => {
      if (flipped || !line.startsWith('{"type":"media_chunk"') || !line.includes(`"id":"${images[1]!.id}","seq":1`)) return line
      flipped = true
      const at = line.indexOf('"data":"') + 100
      return line.slice(0, at) + (line[at] === 'A' ? 'B' : 'A') + line.slice(at + 1)
    })
    expect(flipped).toBe(true)
    writeFileSync(path.join(dir, 'damaged-media.ndjson'), damaged.join('\n') + '\n')
    const damagedMedia = await run(['import', '--tenant', 'damaged-media', '--file', path.join(dir, 'damaged-media.ndjson')], renamed)
    expect(damagedMedia.code).toBe(1)
    expect(damagedMedia.stderr).toContain(`Media ${images[1]!.id}: its file is not the one its record describes`)

    const count = await withClient(thirdUrl, (client) => client.query(`SELECT (SELECT count(*) FROM tenants)::int + (SELECT count(*) FROM articles)::int + (SELECT count(*) FROM media)::int AS n`))
    expect(count.rows[0].n).toBe(0)
    // The originals the refused imports had written are gone again.
    expect(storedKeys(mediaDirs.third)).toEqual([])

    // The whole archive, renamed, loads there: the refusals were the damage's, not the server's.
    const whole = await run(['import', '--tenant', 'arrived', '--file', archive], renamed)
    expect(whole.stderr).toContain('Imported arrived')
    expect(whole.code).toBe(0)
    expect(storedKeys(mediaDirs.third)).toEqual(images.map((image) => image.storageKey).sort())
  }, 400_000)
})
