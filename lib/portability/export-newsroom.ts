import { createHash } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { assertCan } from '../auth/permissions.ts'
import type { PortalSessionState } from '../auth/portal-sessions.ts'
import { assertRecentlyAuthenticated } from '../auth/recent-authentication.ts'
import pg from 'pg'
import { sqlPool } from '../db/client.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { mediaStore } from '../media/storage/media-storage.ts'
import { archiveFormat, archiveSections, archiveVersion, mediaChunkBytes, omittedFromArchive, type EndLine, type ManifestLine, type MediaChunkLine, type MediaLine } from './archive-format.ts'

// Rows read per statement: a page of rows is all the export holds at once, whatever the newsroom's size.
const pageSize = 500

/** The columns of `table` the archive carries: all but the section's omitted ones, as the database has them now. */
async function exportedColumns(client: pg.Client, table: string, omit: string[]): Promise<string[]> {
  const { rows } = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  )
  return rows.map((row) => row.column_name).filter((column) => !omit.includes(column))
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Everything a newsroom owns, as the lines of its archive (archive-format.ts), each ending in a
 * newline, read a page at a time (keyset by id): memory stays flat at any size. Every page is
 * read in one REPEATABLE READ transaction, so the archive is the newsroom at one moment: an article
 * saved while the export runs is wholly in it or wholly out of it (its revisions, history and
 * events with it), and the archive always loads. An admin (or the system: the command line) may
 * export; the export is audited as it starts (a download closed before its end line has taken
 * the rows all the same), and again once the last line has been produced, with the number of
 * rows it carried.
 */
/** Where an export is taken: the operator's command line, or an admin's portal session (which sudo mode reads). */
export type ExportChannel = 'command_line' | { portalSession: PortalSessionState | null }

/**
 * Who may take the whole newsroom: an admin; through the portal, one whose session proved itself
 * recently (sudo, as the declared list asks of newsroom.confirmExport). The download route asks
 * this before it answers (a refusal must be a status, not a cut stream); the export asks it again.
 */
export function assertMayExport(actor: Actor, channel: ExportChannel): void {
  assertCan(actor, 'admin')
  if (channel !== 'command_line') assertRecentlyAuthenticated(channel.portalSession)
}

export async function* exportNewsroom(actor: Actor, channel: ExportChannel): AsyncGenerator<string> {
  assertMayExport(actor, channel)
  const via = channel === 'command_line' ? 'command_line' : 'portal'
  const tenantId = actor.tenant.id
  const hash = createHash('sha256')
  let lines = 0
  const emit = (value: unknown) => {
    const line = typeof value === 'string' ? value : `${JSON.stringify(value)}\n`
    hash.update(line)
    lines++
    return line
  }
  const schema = await sqlPool
    .query<{ name: string }>(`SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name DESC LIMIT 1`)
    .then((result) => result.rows[0]?.name ?? null, () => null)
  // Audited before the first line leaves: a download closed once the rows have arrived (before
  // the end line, and so before the entry below) has taken the newsroom all the same.
  await tenantDb(tenantId).$transaction((tx) =>
    recordAudit(tx, { tenantId, actorId: actor.user?.id ?? null, action: 'tenant.export_started', targetType: 'tenant', targetId: tenantId, metadata: { via } }),
  )
  // A connection of its own, outside the pool the service's requests share: a download may hold
  // its snapshot for as long as the admin's browser takes, and a few paused downloads must not
  // leave the instance's requests without connections. A cut connection fails the query in
  // flight (the archive ends without its end line); its 'error' event must not end the process.
  const client = new pg.Client({ ...(sqlPool.options as pg.ClientConfig), application_name: 'newsroom export' })
  client.on('error', () => undefined)
  await client.connect()
  let open = false
  let released = false
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    open = true
    const library = await client.query<{ files: number; bytes: string }>(`SELECT count(*)::int AS files, coalesce(sum(bytes), 0)::text AS bytes FROM media WHERE tenant_id = $1`, [tenantId])
    const manifest: ManifestLine = {
      type: 'manifest',
      format: archiveFormat,
      version: archiveVersion,
      tenant: { id: tenantId, slug: actor.tenant.slug, name: actor.tenant.name },
      exported_at: new Date().toISOString(),
      schema,
      sections: archiveSections.map((section) => section.table),
      media: { files: library.rows[0]!.files, bytes: Number(library.rows[0]!.bytes) },
      omitted: omittedFromArchive,
    }
    yield emit(manifest)

    const counts: Record<string, number> = {}
    for (const section of archiveSections) {
      const columns = await exportedColumns(client, section.table, section.omit)
      const select = `SELECT id, json_build_object(${columns.map((column) => `'${column}', ${quote(column)}`).join(', ')})::text AS row
        FROM ${quote(section.table)} WHERE ${quote(section.tenantColumn)} = $1 AND id > $2 ORDER BY id LIMIT ${pageSize}`
      counts[section.table] = 0
      let after = ''
      for (;;) {
        const { rows } = await client.query<{ id: string; row: string }>(select, [tenantId, after])
        for (const { row } of rows) {
          // The row's JSON as PostgreSQL wrote it, placed into the line without parsing it again.
          const line = `{"type":"row","table":${JSON.stringify(section.table)},"row":${row}}\n`
          hash.update(line)
          lines++
          counts[section.table] = (counts[section.table] ?? 0) + 1
          yield line
        }
        if (rows.length < pageSize) break
        after = rows.at(-1)!.id
      }
    }
    let files = 0
    for await (const line of mediaFiles(client, tenantId)) {
      if (line.startsWith('{"type":"media",')) files++
      yield emit(line)
    }
    const end: EndLine = { type: 'end', counts, files, lines, sha256: hash.digest('hex') }
    await client.query('COMMIT')
    open = false
    released = true
    await client.end()
    yield `${JSON.stringify(end)}\n`
    const records = Object.values(counts).reduce((sum, n) => sum + n, 0)
    await tenantDb(tenantId).$transaction((tx) =>
      recordAudit(tx, { tenantId, actorId: actor.user?.id ?? null, action: 'tenant.exported', targetType: 'tenant', targetId: tenantId, metadata: { records, via, sha256: end.sha256 } }),
    )
  } finally {
    // A download cancelled midway (the generator returned) or a failed read ends the snapshot too.
    if (open) await client.query('ROLLBACK').catch(() => undefined)
    if (!released) await client.end().catch(() => undefined)
  }
}

/**
 * Each of the newsroom's original files, read from the media store a chunk at a time (a page of
 * records, one file's chunk in memory): its header line, then its bytes as base64 lines. The
 * bytes are hashed as they pass and must be the record's (size and SHA-256): an original that is
 * missing or not what its record says stops the export, rather than ship an archive that would
 * load a broken image.
 */
async function* mediaFiles(client: pg.Client, tenantId: string): AsyncGenerator<string> {
  let after = ''
  for (;;) {
    const { rows } = await client.query<{ id: string; storage_key: string; content_type: string; bytes: number; sha256: string }>(
      `SELECT id, storage_key, content_type, bytes, sha256 FROM media WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT ${pageSize}`,
      [tenantId, after],
    )
    for (const media of rows) {
      const stored = await mediaStore().get(media.storage_key)
      if (!stored) throw new Error(`Media ${media.id}: its original (${media.storage_key}) is missing from the media store; restore it before exporting.`)
      const header: MediaLine = { type: 'media', id: media.id, storage_key: media.storage_key, content_type: media.content_type, bytes: media.bytes, sha256: media.sha256 }
      yield `${JSON.stringify(header)}\n`
      const hash = createHash('sha256')
      let bytes = 0
      let seq = 0
      let pending: Buffer = Buffer.alloc(0)
      const chunkLine = (data: Buffer) => `${JSON.stringify({ type: 'media_chunk', id: media.id, seq: seq++, data: data.toString('base64') } satisfies MediaChunkLine)}\n`
      for await (const piece of stored.body as AsyncIterable<Buffer>) {
        hash.update(piece)
        bytes += piece.length
        pending = pending.length ? Buffer.concat([pending, piece]) : piece
        while (pending.length >= mediaChunkBytes) {
          yield chunkLine(pending.subarray(0, mediaChunkBytes))
          pending = pending.subarray(mediaChunkBytes)
        }
      }
      if (pending.length || seq === 0) yield chunkLine(pending)
      if (bytes !== media.bytes || hash.digest('hex') !== media.sha256) throw new Error(`Media ${media.id}: the stored original (${media.storage_key}) is not the file its record describes (size or SHA-256 differ).`)
    }
    if (rows.length < pageSize) break
    after = rows.at(-1)!.id
  }
}
