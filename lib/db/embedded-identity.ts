import pg from 'pg'
import { embeddedDatabaseUrl } from './embedded-config.ts'

/**
 * Which data directory an embedded database server serves, as the server itself says: on
 * every start it writes its directory and a fresh token as the database's comment
 * (embedded-server.ts), and the same token into the directory's record file. A client that
 * finds the token of its own directory's record at the port it reached is talking to its own
 * data; any other answer means another checkout's server (or none of ours) sits there.
 */
export type EmbeddedIdentity = { dataDir: string; token: string }

const identityPrefix = 'newsroom embedded database '

export function identityComment(identity: EmbeddedIdentity): string {
  return identityPrefix + JSON.stringify(identity)
}

export function parseIdentityComment(comment: string | null | undefined): EmbeddedIdentity | null {
  if (!comment?.startsWith(identityPrefix)) return null
  try {
    const identity = JSON.parse(comment.slice(identityPrefix.length)) as Partial<EmbeddedIdentity>
    return typeof identity.dataDir === 'string' && typeof identity.token === 'string' ? (identity as EmbeddedIdentity) : null
  } catch {
    return null
  }
}

const identityQuery = "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()"

/**
 * Asks the server at `port` whose it is: its identity, null when it answers but names none (an
 * older embedded server, or some other PostgreSQL), undefined when nothing answers there.
 */
export async function embeddedIdentityAt(port: number): Promise<EmbeddedIdentity | null | undefined> {
  const client = new pg.Client({ connectionString: embeddedDatabaseUrl(port), connectionTimeoutMillis: 3_000 })
  // A server that cuts the connection must not end the process through an unheard 'error'.
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch {
    return undefined
  }
  try {
    const { rows } = await client.query<{ comment: string | null }>(identityQuery)
    return parseIdentityComment(rows[0]?.comment)
  } catch {
    return null
  } finally {
    await client.end().catch(() => undefined)
  }
}
