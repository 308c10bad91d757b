import { createHash } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { assertCan } from '../auth/permissions.ts'
import { sqlPool } from '../db/client.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { archiveFormat, archiveSections, archiveVersion, omittedFromArchive, type EndLine, type ManifestLine } from './archive-format.ts'

// Rows read per statement: a page of rows is all the export holds at once, whatever the newsroom's size.
const pageSize = 500

/** The columns of `table` the archive carries: all but the section's omitted ones, as the database has them now. */
async function exportedColumns(table: string, omit: string[]): Promise<string[]> {
  const { rows } = await sqlPool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  )
  return rows.map((row) => row.column_name).filter((column) => !omit.includes(column))
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Everything a newsroom owns, as the lines of its archive (archive-format.ts), each ending in a
 * newline, read a page at a time (keyset by id, one snapshot per page): memory stays flat at any
 * size. An admin (or the system: the command line) may export; the export is audited once the
 * last line has been produced, with the number of rows it carried.
 */
export async function* exportNewsroom(actor: Actor, via: 'command_line' | 'portal'): AsyncGenerator<string> {
  assertCan(actor, 'admin')
  const tenantId = actor.tenant.id
  const hash = createHash('sha256')
  let lines = 0
  const emit = (value: unknown) => {
    const line = `${JSON.stringify(value)}\n`
    hash.update(line)
    lines++
    return line
  }
  const schema = await sqlPool
    .query<{ name: string }>(`SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name DESC LIMIT 1`)
    .then((result) => result.rows[0]?.name ?? null, () => null)
  const manifest: ManifestLine = {
    type: 'manifest',
    format: archiveFormat,
    version: archiveVersion,
    tenant: { id: tenantId, slug: actor.tenant.slug, name: actor.tenant.name },
    exported_at: new Date().toISOString(),
    schema,
    sections: archiveSections.map((section) => section.table),
    omitted: omittedFromArchive,
  }
  yield emit(manifest)

  const counts: Record<string, number> = {}
  for (const section of archiveSections) {
    const columns = await exportedColumns(section.table, section.omit)
    const select = `SELECT id, json_build_object(${columns.map((column) => `'${column}', ${quote(column)}`).join(', ')})::text AS row
      FROM ${quote(section.table)} WHERE ${quote(section.tenantColumn)} = $1 AND id > $2 ORDER BY id LIMIT ${pageSize}`
    counts[section.table] = 0
    let after = ''
    for (;;) {
      const { rows } = await sqlPool.query<{ id: string; row: string }>(select, [tenantId, after])
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
  const end: EndLine = { type: 'end', counts, lines, sha256: hash.digest('hex') }
  yield `${JSON.stringify(end)}\n`
  const records = Object.values(counts).reduce((sum, n) => sum + n, 0)
  await tenantDb(tenantId).$transaction((tx) =>
    recordAudit(tx, { tenantId, actorId: actor.user?.id ?? null, action: 'tenant.exported', targetType: 'tenant', targetId: tenantId, metadata: { records, via, sha256: end.sha256 } }),
  )
}
