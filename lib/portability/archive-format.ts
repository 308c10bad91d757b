/**
 * A newsroom's archive (`npm run newsroom -- export`, the portal's Settings → Export): one
 * NDJSON stream, one JSON object a line, read and written a line at a time so neither side ever
 * holds the newsroom in memory.
 *
 *   {"type":"manifest", "format":"newsroom-archive", "version":1, "tenant":{id,slug,name},
 *    "exported_at", "schema":<last migration>, "sections":[table…], "omitted":{what: why}}
 *   {"type":"row", "table":"articles", "row":{…the row's columns, as PostgreSQL's row_to_json…}}
 *   …every row of every section, sections in `sections` order (parents before children)…
 *   then each image's original file, after every row (the `media` rows say what they are):
 *   {"type":"media", "id", "storage_key", "content_type", "bytes", "sha256"}   the file's header,
 *   {"type":"media_chunk", "id", "seq":0…, "data":<base64 of up to 192 KiB>}  …its bytes, in order
 *   {"type":"end", "counts":{table:n}, "files":n, "lines":n, "sha256":<hex of every byte before this line>}
 *
 * The rows are the database's own (row_to_json), not the API's records: those are views (status
 * spelled for the API, addresses computed, internal columns left out) and would not load back
 * as they were. The trailer's checksum covers the manifest, every row and every chunk; each file's
 * header carries its own size and SHA-256 (the media row's content hash: originals are stored by
 * it), and the manifest says how many files and bytes follow. The importer checks all of them
 * before it commits, so a truncated or altered archive, or one whose file does not match its
 * record, loads nothing. Renditions are not carried: the new server renders them on first request.
 */
export const archiveFormat = 'newsroom-archive'
export const archiveVersion = 1

/**
 * What a newsroom owns, in load order (parents first), and the columns left out: secrets and
 * credentials (never leave the server), and columns the database derives on load (triggers).
 */
export const archiveSections: { table: string; tenantColumn: string; omit: string[] }[] = [
  { table: 'tenants', tenantColumn: 'id', omit: [] },
  { table: 'users', tenantColumn: 'tenant_id', omit: ['password_hash'] },
  { table: 'departments', tenantColumn: 'tenant_id', omit: [] },
  // The media library's records (their files follow the rows); before articles, which name them.
  { table: 'media', tenantColumn: 'tenant_id', omit: [] },
  { table: 'articles', tenantColumn: 'tenant_id', omit: ['search_vector', 'change_xid'] },
  { table: 'article_revisions', tenantColumn: 'tenant_id', omit: [] },
  { table: 'article_transitions', tenantColumn: 'tenant_id', omit: [] },
  { table: 'article_notes', tenantColumn: 'tenant_id', omit: [] },
  { table: 'webhook_subscriptions', tenantColumn: 'tenant_id', omit: ['secret_encrypted', 'previous_secret_encrypted', 'previous_secret_expires_at'] },
  { table: 'events', tenantColumn: 'tenant_id', omit: [] },
  { table: 'audit_entries', tenantColumn: 'tenant_id', omit: [] },
]

/** Said in the manifest: what the archive deliberately does not carry, and why. */
export const omittedFromArchive: Record<string, string> = {
  'member passwords': 'credentials stay on the server; members set a password (or sign in with SSO) on the new one',
  'second factors, passkeys, sessions': 'bound to this server; members enrol again',
  'webhook signing secrets': 'imported subscriptions are paused with a new secret; rotate and share it before resuming',
  'API tokens and content keys': 'secrets; make new ones on the new server (npm run tokens, npm run content-keys)',
  'delivery logs, request logs, mail log, edit leases, preview links': 'operational records of this server',
  'media renditions': 'derived from the originals, which the archive carries; the new server renders them again on first request',
  'single sign-on connection': 'its client secret is a credential; configure it again',
}

export type ManifestLine = {
  type: 'manifest'
  format: typeof archiveFormat
  version: number
  tenant: { id: string; slug: string; name: string }
  exported_at: string
  schema: string | null
  sections: string[]
  /** The original files that follow the rows: how many, and their bytes in all. */
  media: { files: number; bytes: number }
  omitted: Record<string, string>
}
export type RowLine = { type: 'row'; table: string; row: Record<string, unknown> }
export type MediaLine = { type: 'media'; id: string; storage_key: string; content_type: string; bytes: number; sha256: string }
export type MediaChunkLine = { type: 'media_chunk'; id: string; seq: number; data: string }
export type EndLine = { type: 'end'; counts: Record<string, number>; files: number; lines: number; sha256: string }

/** Raw bytes per media_chunk line (a multiple of 3, so each chunk's base64 stands alone): 256 KiB of text a line. */
export const mediaChunkBytes = 192 * 1024
