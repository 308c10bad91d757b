/**
 * Parsing of PostgreSQL connection strings as written in prisma.config.ts
 * (Prisma URL conventions) into `pg` pool configurations.
 */
import { invalidConnectionString } from './errors.mjs'

/**
 * Query parameters that only mean something to Prisma's native drivers; `pg`
 * would either ignore them or, worse, pass them to the server as runtime
 * parameters. `schema` is handled explicitly (see `poolConfig`).
 */
const PRISMA_ONLY_PARAMS = [
  'schema',
  'connection_limit',
  'pool_timeout',
  'pgbouncer',
  'statement_cache_size',
  'socket_timeout',
  'connect_timeout',
  'max_connection_lifetime',
  'max_idle_connection_lifetime',
  'single_use_connections',
  'sslaccept',
  'sslidentity',
  'sslpassword',
]

/**
 * A parsed connection string.
 * @typedef {{
 *   url: string,
 *   host: string,
 *   port: number,
 *   database: string,
 *   user: string,
 *   schema: string | undefined,
 *   withDatabase: (database: string) => Connection,
 *   poolConfig: (overrides?: import('pg').PoolConfig) => import('pg').PoolConfig,
 *   sameDatabaseAs: (other: Connection) => boolean,
 * }} Connection
 */

/**
 * @param {string} url
 * @returns {Connection}
 */
export function parseConnection(url) {
  if (typeof url !== 'string' || url.length === 0) {
    throw invalidConnectionString('The datasource URL is empty. Set `datasource.url` in your Prisma config file.')
  }
  /** @type {URL} */
  let parsed
  try {
    parsed = new URL(url)
  } catch {
    throw invalidConnectionString('The URL could not be parsed.')
  }
  if (!['postgres:', 'postgresql:'].includes(parsed.protocol)) {
    throw invalidConnectionString(
      `The scheme \`${parsed.protocol.replace(/:$/, '')}\` is not supported by this schema engine (PostgreSQL only: postgresql://…).`,
    )
  }
  const params = parsed.searchParams
  const user = decodeURIComponent(parsed.username) || process.env.PGUSER || 'postgres'
  const host = params.get('host') ?? (parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost')
  const port = Number(parsed.port || params.get('port') || 5432)
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user
  const schema = params.get('schema') ?? undefined
  const connectTimeout = Number(params.get('connect_timeout') ?? 5)

  const cleaned = new URL(parsed.href)
  for (const p of PRISMA_ONLY_PARAMS) cleaned.searchParams.delete(p)
  // pg lets connection-string values override explicit config, so `options`
  // must leave the URL when we add a search_path to it below.
  if (schema) cleaned.searchParams.delete('options')

  /** @type {Connection} */
  const conn = {
    url,
    host,
    port,
    database,
    user,
    schema,
    withDatabase(db) {
      const next = new URL(parsed.href)
      next.pathname = `/${encodeURIComponent(db)}`
      return parseConnection(next.href)
    },
    poolConfig(overrides = {}) {
      /** @type {import('pg').PoolConfig} */
      const config = {
        connectionString: cleaned.href,
        // The native engine works over ONE connection per database. Keeping a
        // single pooled connection preserves its session semantics (advisory
        // locks taken by applyMigrations, SET commands) and works with
        // PGlite's socket server, which by default accepts one client only.
        max: 1,
        // Never drop the idle connection behind the engine's back (that would
        // silently release session-level advisory locks).
        idleTimeoutMillis: 0,
        connectionTimeoutMillis: connectTimeout > 0 ? connectTimeout * 1000 : 0,
        ...overrides,
      }
      if (schema) {
        // Native engine semantics of `?schema=`: unqualified names in
        // migration scripts resolve to that schema.
        config.options = [params.get('options'), `-c search_path="${schema.replaceAll('"', '""')}"`]
          .filter(Boolean)
          .join(' ')
      }
      return config
    },
    sameDatabaseAs(other) {
      const norm = (/** @type {string} */ h) => (['localhost', '127.0.0.1', '::1'].includes(h) ? 'localhost' : h)
      return norm(other.host) === norm(host) && other.port === port && other.database === database
    },
  }
  return conn
}
