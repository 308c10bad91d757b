import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type pg from 'pg'
import { recordAudit } from '../audit.ts'
import { hashPassword } from '../auth/passwords.ts'
import { sqlPool } from '../db/client.ts'
import { DomainError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import { encryptSecret } from '../security/secret-box.ts'
import { generatePassword } from '../users/manage-users.ts'
import { newsroomSlugSchema } from '../tenancy/newsroom-schemas.ts'
import { isOwnOriginalKey } from '../media/media-library.ts'
import { mediaStore } from '../media/storage/media-storage.ts'
import { archiveFormat, archiveSections, archiveVersion, type EndLine, type ManifestLine, type MediaChunkLine, type MediaLine, type RowLine } from './archive-format.ts'

export class ArchiveError extends DomainError {
  constructor(message: string) {
    super('invalid_archive', message)
  }
}

// Rows inserted per statement.
const batchSize = 500

export type ImportResult = {
  tenant: { id: string; slug: string; name: string }
  counts: Record<string, number>
  /** The first admin's new password (the archive carries none), shown once. */
  admin: { email: string; password: string } | null
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Loads a newsroom's archive (archive-format.ts) into this server, keeping every id and so every
 * relation, as one transaction: the archive's checksum and counts are checked before it commits,
 * so a truncated, altered or refused archive loads nothing. The newsroom must not exist here (by
 * id or slug; `slug` renames it), nor any of its members' addresses (they sign in service-wide).
 *
 * What the database derives is derived again: the articles' search vectors, change order and
 * counts by their triggers; the revision trigger stands aside (newsroom.importing) for the
 * archive's own revisions. Members get unusable passwords, the first active admin a new one
 * (returned once); webhook subscriptions are paused with a new signing secret; events count as
 * sent (they were, on the old server), so nothing is delivered again, but for the scheduled
 * publications still ahead (their runs were the old server's). Each media original is
 * written to this server's media store (under the same key) once its size and SHA-256 match its
 * record, before the rows commit; if the import fails, the files it wrote are removed again.
 * Renditions are rendered on first request, as for any upload.
 */
export async function importNewsroom(source: AsyncIterable<string>, options: { slug?: string } = {}): Promise<ImportResult> {
  // Taken before the first await: a readline interface emits its lines from the start, and
  // only an iterator already attached buffers them (lines emitted before it are lost).
  const lines = { [Symbol.asyncIterator]: ((iterator) => () => iterator)(source[Symbol.asyncIterator]()) }
  const client = await sqlPool.connect()
  const hash = createHash('sha256')
  let manifest: ManifestLine | undefined
  let end: EndLine | undefined
  let lineCount = 0
  const counts: Record<string, number> = {}
  const pending = new Map<string, Record<string, unknown>[]>()
  const columnsOf = new Map<string, Set<string>>()
  const restoredFrom: [string, string][] = []
  const unusableHash = await hashPassword(randomBytes(32).toString('base64url'))
  let admin: { id: string; email: string } | undefined
  let sectionIndex = 0
  // The media records (id → what its file must be), the files received, and the one being received.
  const mediaRecords = new Map<string, { storageKey: string; contentType: string; bytes: number; sha256: string }>()
  const filesReceived = new Set<string>()
  const writtenKeys: string[] = []
  let receiving: { header: MediaLine; temp: string; out: WriteStream; hash: ReturnType<typeof createHash>; bytes: number; seq: number } | undefined
  let tempDir: string | undefined

  const tableColumns = async (table: string) => {
    if (!columnsOf.has(table)) {
      const { rows } = await client.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, [table])
      columnsOf.set(table, new Set(rows.map((row) => row.column_name)))
    }
    return columnsOf.get(table)!
  }

  const flush = async (table: string) => {
    const rows = pending.get(table)
    if (!rows?.length) return
    pending.set(table, [])
    const known = await tableColumns(table)
    const columns = Object.keys(rows[0]!).filter((column) => known.has(column))
    const list = columns.map(quote).join(', ')
    try {
      await client.query(`INSERT INTO ${quote(table)} (${list}) SELECT ${list} FROM json_populate_recordset(null::${quote(table)}, $1::json)`, [JSON.stringify(rows)])
    } catch (error) {
      const { code, detail } = error as { code?: string; detail?: string }
      if (code === '23505' && table === 'users') throw new ValidationError([{ field: 'archive', message: `A member's e-mail address is in use on this server already (${detail ?? 'users'}); addresses sign in service-wide.` }])
      if (code === '23505') throw new ArchiveError(`The archive's ${table} collide with records on this server (${detail ?? code}); import into a server without this newsroom.`)
      throw error
    }
  }

  const take = async ({ table, row }: RowLine) => {
    if (filesReceived.size || receiving) throw new ArchiveError(`Line ${lineCount}: ${table} rows after the media files: the archive is out of order.`)
    const index = archiveSections.findIndex((section) => section.table === table)
    if (index < 0) throw new ArchiveError(`Line ${lineCount}: the archive has rows of ${table}, which this server does not import.`)
    if (index < sectionIndex) throw new ArchiveError(`Line ${lineCount}: ${table} rows after ${archiveSections[sectionIndex]!.table}: sections are out of order.`)
    if (index > sectionIndex) {
      for (const section of archiveSections.slice(sectionIndex, index)) await flush(section.table)
      sectionIndex = index
    }
    if (row[archiveSections[index]!.tenantColumn] !== manifest!.tenant.id) throw new ArchiveError(`Line ${lineCount}: a ${table} row of another newsroom.`)
    // A column this server does not have comes from a newer release: loading the row without it
    // would lose that field silently. Upgrade first (the archive says which schema it was taken on).
    const known = await tableColumns(table)
    const unknown = Object.keys(row).filter((column) => !known.has(column))
    if (unknown.length) {
      throw new ArchiveError(
        `Line ${lineCount}: the archive's ${table} have ${unknown.join(', ')}, which this server's database does not: it was exported by a newer release (schema ${manifest!.schema ?? 'unknown'}). Upgrade this server (the migration step) and import again. Nothing was imported.`,
      )
    }
    const loaded = { ...row }
    if (table === 'tenants' && options.slug) loaded.slug = options.slug
    if (table === 'tenants') {
      // An archive keeps its ids (relations, webhooks' and integrations' references), so a server
      // that holds the newsroom already cannot take it again under another slug: say which it is.
      const taken = await client.query<{ id: string }>(`SELECT id FROM tenants WHERE id = $1 OR slug = $2`, [loaded.id, loaded.slug])
      if (taken.rows.some((existing) => existing.id === loaded.id)) {
        throw new ValidationError([
          {
            field: 'tenant',
            message: `This server holds this newsroom already (id ${String(loaded.id)}): an archive keeps its ids, so it imports only on a server that does not have it, and another slug does not change that. To bring back what a restored backup holds, read it from an instance on the restored database and write it here through the API (docs/deploy.md, "Restoring a backup to a point in time").`,
          },
        ])
      }
      if (taken.rowCount) throw new ValidationError([{ field: 'tenant', message: `Another newsroom on this server has the slug '${String(loaded.slug)}'; import under another one with --tenant <new-slug>.` }])
    }
    if (table === 'users') {
      loaded.password_hash = unusableHash
      if (!admin && loaded.role === 'admin' && loaded.active === true) admin = { id: String(loaded.id), email: String(loaded.email) }
    }
    if (table === 'webhook_subscriptions') {
      loaded.secret_encrypted = encryptSecret(randomBytes(24).toString('hex'))
      loaded.status = 'paused'
    }
    if (table === 'media') {
      // Its own original's key, in either form (one per record, or the hash's of older records): never another record's, whose file it could overwrite or remove.
      if (!isOwnOriginalKey(String(loaded.storage_key), { tenantId: manifest!.tenant.id, sha256: String(loaded.sha256), id: String(loaded.id) })) throw new ArchiveError(`Line ${lineCount}: media ${String(loaded.id)} names a storage key that is not its own original's.`)
      mediaRecords.set(String(loaded.id), { storageKey: String(loaded.storage_key), contentType: String(loaded.content_type), bytes: Number(loaded.bytes), sha256: String(loaded.sha256) })
    }
    if (table === 'events' && loaded.sent_to_queue_at == null) loaded.sent_to_queue_at = new Date().toISOString()
    if (table === 'article_revisions' && loaded.restored_from_revision_id) {
      // A revision may name one later in id order: linked once all are in.
      restoredFrom.push([String(loaded.id), String(loaded.restored_from_revision_id)])
      loaded.restored_from_revision_id = null
    }
    counts[table] = (counts[table] ?? 0) + 1
    const rows = pending.get(table) ?? []
    rows.push(loaded)
    pending.set(table, rows)
    if (rows.length >= batchSize) await flush(table)
  }

  /** The file being received is complete: checked against its record, then written to the media store. */
  const finishFile = async () => {
    if (!receiving) return
    const { header, temp, out, hash, bytes } = receiving
    receiving = undefined
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
    const record = mediaRecords.get(header.id)!
    if (bytes !== record.bytes || hash.digest('hex') !== record.sha256) throw new ArchiveError(`Media ${header.id}: its file is not the one its record describes (size or SHA-256 differ). Nothing was imported.`)
    // An original's key names its content hash: one already under this key (left by an earlier
    // stay of this newsroom) is these bytes, and is neither written again nor removed on failure.
    const present = await mediaStore().get(record.storageKey)
    if (present) present.body.destroy()
    else {
      writtenKeys.push(record.storageKey)
      await mediaStore().putFile(record.storageKey, temp, record.contentType)
    }
    rmSync(temp, { force: true })
    filesReceived.add(header.id)
  }

  const startFile = async (header: MediaLine) => {
    await finishFile()
    if (!filesReceived.size) for (const section of archiveSections.slice(sectionIndex)) await flush(section.table)
    sectionIndex = archiveSections.length
    const record = mediaRecords.get(header.id)
    if (!record) throw new ArchiveError(`Line ${lineCount}: a media file (${header.id}) with no media record in the archive.`)
    if (filesReceived.has(header.id)) throw new ArchiveError(`Line ${lineCount}: media ${header.id}'s file appears twice.`)
    if (header.sha256 !== record.sha256 || header.bytes !== record.bytes || header.storage_key !== record.storageKey) throw new ArchiveError(`Line ${lineCount}: media ${header.id}'s file header does not match its record.`)
    tempDir ??= mkdtempSync(path.join(tmpdir(), 'newsroom-import-'))
    const temp = path.join(tempDir, header.id.replace(/[^A-Za-z0-9_-]/g, '_'))
    receiving = { header, temp, out: createWriteStream(temp), hash: createHash('sha256'), bytes: 0, seq: 0 }
  }

  const takeChunk = async (chunk: MediaChunkLine) => {
    if (!receiving || chunk.id !== receiving.header.id || chunk.seq !== receiving.seq) throw new ArchiveError(`Line ${lineCount}: a media chunk out of place (media ${String(chunk.id)}, part ${String(chunk.seq)}).`)
    const bytes = Buffer.from(typeof chunk.data === 'string' ? chunk.data : '', 'base64')
    receiving.seq++
    receiving.bytes += bytes.length
    if (receiving.bytes > receiving.header.bytes) throw new ArchiveError(`Media ${receiving.header.id}: its file is longer than its record says. Nothing was imported.`)
    receiving.hash.update(bytes)
    if (!receiving.out.write(bytes)) await new Promise<void>((resolve) => receiving!.out.once('drain', () => resolve()))
  }

  try {
    await client.query('BEGIN')
    // The articles' revision trigger records nothing for the rows this transaction inserts
    // (migration 20261129070000): the archive brings their revisions, with their own ids.
    await client.query("SET LOCAL newsroom.importing = 'on'")
    for await (const text of lines) {
      if (text.trim() === '') continue
      lineCount++
      if (end) throw new ArchiveError(`Line ${lineCount}: the archive goes on after its end line.`)
      let line: { type?: string }
      try {
        line = JSON.parse(text) as { type?: string }
      } catch {
        throw new ArchiveError(`Line ${lineCount} is not JSON: the archive is damaged.`)
      }
      if (line.type === 'end') {
        await finishFile()
        end = line as EndLine
        continue
      }
      hash.update(`${text}\n`)
      if (!manifest) {
        const head = line as ManifestLine
        if (head.type !== 'manifest' || head.format !== archiveFormat) throw new ArchiveError('This is not a newsroom archive: its first line is not its manifest.')
        if (head.version !== archiveVersion) throw new ArchiveError(`This server reads archives of version ${archiveVersion}; this one is version ${head.version}.`)
        if (options.slug !== undefined) {
          // The slug as the rules spell it (trimmed, lower case): the raw text would store a slug
          // no one can name (export --tenant, sign-in addresses) and slip past the taken-slug check.
          const slug = newsroomSlugSchema.safeParse(options.slug)
          if (!slug.success) throw new ValidationError([{ field: 'tenant', message: slug.error.issues[0]?.message ?? 'Not a valid slug.' }])
          options = { ...options, slug: slug.data }
        }
        manifest = head
      } else if (line.type === 'row') await take(line as RowLine)
      else if (line.type === 'media') await startFile(line as MediaLine)
      else if (line.type === 'media_chunk') await takeChunk(line as MediaChunkLine)
      else throw new ArchiveError(`Line ${lineCount}: unknown line type ${JSON.stringify(line.type)}.`)
    }
    if (!manifest) throw new ArchiveError('The archive is empty.')
    if (!end) throw new ArchiveError(`The archive ends after line ${lineCount} without its end line: it was cut short. Nothing was imported.`)
    if (end.lines !== lineCount - 1 || end.sha256 !== hash.digest('hex')) throw new ArchiveError('The archive does not match its checksum: it was altered or damaged. Nothing was imported.')
    for (const section of archiveSections) {
      if ((end.counts[section.table] ?? 0) !== (counts[section.table] ?? 0)) throw new ArchiveError(`The archive says ${end.counts[section.table] ?? 0} ${section.table} and holds ${counts[section.table] ?? 0}. Nothing was imported.`)
    }
    const missing = [...mediaRecords.keys()].filter((id) => !filesReceived.has(id))
    if (missing.length || (end.files ?? 0) !== filesReceived.size) throw new ArchiveError(`The archive says ${end.files ?? 0} media files and holds ${filesReceived.size}${missing.length ? ` (no file for ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? '…' : ''})` : ''}. Nothing was imported.`)
    for (const section of archiveSections) await flush(section.table)
    if (restoredFrom.length) {
      await client.query(
        `UPDATE article_revisions r SET restored_from_revision_id = l.source FROM json_to_recordset($1::json) AS l(id text, source text) WHERE r.id = l.id`,
        [JSON.stringify(restoredFrom.map(([id, source]) => ({ id, source })))],
      )
    }
    // A scheduled publication is a run the old server's Inngest holds (asleep until publish_at);
    // this server's has none. The event that started it waits in this server's outbox again, so
    // its sweeper starts the run here (it publishes only if the article is still scheduled then).
    await client.query(
      `UPDATE events e SET sent_to_queue_at = NULL FROM articles a
        WHERE e.tenant_id = $1 AND a.tenant_id = $1 AND e.kind = 'article.publish_scheduled' AND a.id = e.data->>'article_id'
          AND a.scheduled_publish_at IS NOT NULL AND (e.data->>'publish_at')::timestamptz = a.scheduled_publish_at`,
      [manifest.tenant.id],
    )
    const tenant = (await client.query<{ id: string; slug: string; name: string }>('SELECT id, slug, name FROM tenants WHERE id = $1', [manifest.tenant.id])).rows[0]
    if (!tenant) throw new ArchiveError('The archive has no newsroom row.')
    let password: string | null = null
    if (admin) {
      password = generatePassword()
      await client.query('UPDATE users SET password_hash = $1 WHERE id = $2', [await hashPassword(password), admin.id])
    }
    await recordAudit(sqlAudit(client), {
      tenantId: tenant.id,
      actorId: null,
      action: 'tenant.imported',
      targetType: 'tenant',
      targetId: tenant.id,
      metadata: { records: Object.values(counts).reduce((sum, n) => sum + n, 0), via: 'command_line', from: manifest.tenant.slug, exported_at: manifest.exported_at, sha256: end.sha256 },
    })
    await client.query('COMMIT')
    return { tenant, counts, admin: admin && password ? { email: admin.email, password } : null }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    receiving?.out.destroy()
    // The rows are gone with the transaction; so go the files this import wrote.
    for (const key of writtenKeys) await mediaStore().delete(key).catch(() => undefined)
    throw error
  } finally {
    client.release()
    if (tempDir) rmSync(tempDir, { recursive: true, force: true })
  }
}

/** recordAudit's writer over this transaction's connection. */
function sqlAudit(client: pg.PoolClient) {
  return {
    auditEntry: {
      create: async ({ data }: { data: { id: string; tenantId: string; actorId?: string | null; action: string; targetType: string; targetId: string; metadata?: unknown } }) => {
        await client.query('INSERT INTO audit_entries (id, tenant_id, actor_id, action, target_type, target_id, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          data.id ?? createId('aud'), data.tenantId, data.actorId ?? null, data.action, data.targetType, data.targetId, JSON.stringify(data.metadata ?? {}),
        ])
      },
    },
  }
}
