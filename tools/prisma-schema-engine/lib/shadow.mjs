/**
 * Shadow databases for `migrate dev`, `migrate diff --from/--to-migrations`,
 * drift detection and data-loss evaluation.
 *
 * We do NOT use adapter-pg's `connectToShadowDb()`: in 7.10 its pool config
 * spreads `{ ...config, database }` but keeps `connectionString`, which pg
 * lets win, so the "shadow" is the main database (-> "P3006 … already
 * exists"); and its dispose drops the database before ending the pool that is
 * still connected to it.
 *
 * Every request gets a fresh, empty database (the engine asks again for
 * evaluateDataLoss after `migrate dev` applied pending migrations, and again
 * for createMigration). Selection rule, first match wins:
 *  1. `shadowDatabaseUrl` is configured -> that database, emptied (all
 *     non-system schemas dropped, `public` recreated) each time, because it is
 *     reused across requests and runs.
 *  2. `PRISMA_SHADOW_PGLITE=1` -> in-memory PGlite (see 4).
 *  3. A temporary database `prisma_shadow_<random>` on the main server
 *     (CREATE DATABASE over a separate connection; on dispose: close the
 *     shadow pool FIRST, then DROP DATABASE). Skipped when the main server is
 *     PGlite (its `version()` says so: pglite-socket serves one database, so
 *     CREATE DATABASE "succeeds" but is unusable) and whenever the server
 *     refuses (no CREATEDB privilege, no second connection allowed, …).
 *  4. Fallback: in-memory PGlite (`@electric-sql/pglite`) served by an
 *     ephemeral `PGLiteSocketServer` on 127.0.0.1 port 0, stopped at the end
 *     of the process (emptied and reused between requests of one process).
 *     `PRISMA_SHADOW_PGLITE=0` disables the fallback (the CREATE DATABASE error
 *     is reported instead). Extensions named in `CREATE EXTENSION` statements
 *     of the migrations (plus `PRISMA_SHADOW_PGLITE_EXTENSIONS`, comma
 *     separated) are loaded into that PGlite when an
 *     `@electric-sql/pglite/contrib/<name>` module or an
 *     `@electric-sql/pglite-<name>` package provides them.
 *     A freshly initialised PGlite data directory is cached (gzip tarball in
 *     the OS temp dir, per PGlite version): loading it takes ~1 s instead of
 *     ~4 s of initdb (`PRISMA_SHADOW_PGLITE_CACHE=0` disables the cache).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { openAdapter } from './adapter.mjs'
import { parseConnection } from './connection.mjs'
import { UserFacingError } from './errors.mjs'
import { debug, log } from './log.mjs'

/** Empties a database: drop every non-system schema (with everything in it), recreate `public`. */
const RESET_DATABASE_SQL = `
DO $$
DECLARE s record;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace
           WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
  LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s.nspname);
  END LOOP;
END $$;
CREATE SCHEMA IF NOT EXISTS "public";
`

export class ShadowDatabaseProvider {
  /**
   * @param {{ main: import('./connection.mjs').Connection, shadowUrl?: string }} opts
   */
  constructor({ main, shadowUrl }) {
    this.main = main
    this.shadow = shadowUrl ? parseConnection(shadowUrl) : undefined
    /** @type {'server' | 'pglite' | undefined} decided on first use, then kept for the process */
    this.strategy = undefined
    /** @type {Set<any>} shadow adapters not disposed yet */
    this.live = new Set()
    /** @type {PgliteShadowServer | undefined} idle PGlite kept for the next request */
    this.idlePglite = undefined
    this.closed = false
    /** SQL of the migrations in the current request (to find extensions for PGlite) */
    this.migrationsSql = ''
  }

  /** @param {string} sql migrations + shadowDbInitScript of the current RPC request */
  setMigrationsSql(sql) {
    this.migrationsSql = sql
  }

  /** @returns {Promise<any>} a SqlDriverAdapter connected to an empty shadow database */
  async open() {
    const adapter = await this.#openByStrategy()
    this.live.add(adapter)
    const dispose = adapter.dispose
    adapter.dispose = async () => {
      this.live.delete(adapter)
      await dispose.call(adapter)
    }
    return adapter
  }

  /** Dispose shadows the engine did not dispose itself and stop PGlite (shutdown path). */
  async disposeAll() {
    this.closed = true
    await Promise.allSettled([...this.live].map((a) => a.dispose()))
    const idle = this.idlePglite
    this.idlePglite = undefined
    await idle?.close()
  }

  async #openByStrategy() {
    if (this.shadow) return this.#openExplicit(this.shadow)
    const env = process.env.PRISMA_SHADOW_PGLITE
    if (env === '1' || env === 'true') this.strategy = 'pglite'
    if (this.strategy === 'pglite') return this.#openPglite()
    try {
      const adapter = await this.#openTemporaryOnMainServer()
      this.strategy = 'server'
      return adapter
    } catch (error) {
      if (env === '0' || env === 'false' || this.strategy === 'server') throw error
      log('INFO', {
        message: `Using an in-memory PGlite shadow database: cannot use a temporary database on the main server (${/** @type {Error} */ (error).message})`,
      })
      this.strategy = 'pglite'
      return this.#openPglite()
    }
  }

  /** @param {import('./connection.mjs').Connection} shadow */
  async #openExplicit(shadow) {
    if (shadow.sameDatabaseAs(this.main)) {
      throw new UserFacingError(
        'The shadow database you configured appears to be the same as the main database. Please specify another shadow database.',
      )
    }
    // A configured shadow database is reused across runs and requests, but
    // the engine expects it blank every time.
    await withClient(shadow, async (client) => {
      await client.query(RESET_DATABASE_SQL)
      if (shadow.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${shadow.schema.replaceAll('"', '""')}"`)
    })
    return openAdapter(shadow, { label: 'shadow (shadowDatabaseUrl)' })
  }

  async #openTemporaryOnMainServer() {
    const name = `prisma_shadow_${crypto.randomBytes(8).toString('hex')}`
    await withClient(this.main, async (client) => {
      const { rows } = await client.query('SELECT version() AS v')
      if (/pglite/i.test(String(rows[0]?.v))) {
        throw new Error('the main database server is PGlite, which serves a single database')
      }
      await client.query(`CREATE DATABASE "${name}"`)
    })
    debug(`created temporary shadow database ${name}`)
    const shadow = this.main.withDatabase(name)
    try {
      return await openAdapter(shadow, {
        label: `shadow (${name})`,
        // Runs after the adapter closed its pool: a database with open
        // connections cannot be dropped.
        onDispose: () => dropDatabase(this.main, name),
      })
    } catch (error) {
      await dropDatabase(this.main, name)
      throw error
    }
  }

  async #openPglite() {
    const wanted = this.#extensionsWanted()
    let instance = this.idlePglite
    this.idlePglite = undefined
    if (instance && !(instance.provides(wanted) && (await instance.reset().catch(() => false)))) {
      await instance.close()
      instance = undefined
    }
    instance ??= await PgliteShadowServer.start(wanted)
    const pglite = instance
    try {
      return await openAdapter(pglite.conn, {
        label: 'shadow (PGlite)',
        onDispose: async () => {
          if (this.closed || this.idlePglite) await pglite.close()
          else this.idlePglite = pglite
        },
      })
    } catch (error) {
      await pglite.close()
      throw error
    }
  }

  #extensionsWanted() {
    const names = new Set(
      (process.env.PRISMA_SHADOW_PGLITE_EXTENSIONS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    const re = /create\s+extension\s+(?:if\s+not\s+exists\s+)?(?:"([^"]+)"|([A-Za-z0-9_]+))/gi
    for (const m of this.migrationsSql.matchAll(re)) names.add(m[1] ?? m[2])
    return [...names].sort()
  }
}

/**
 * @template T
 * @param {import('./connection.mjs').Connection} conn
 * @param {(client: import('pg').Client) => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withClient(conn, fn) {
  const client = new pg.Client(conn.poolConfig())
  client.on('error', (e) => debug('pg client error', e))
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * @param {import('./connection.mjs').Connection} main
 * @param {string} name
 */
async function dropDatabase(main, name) {
  try {
    await withClient(main, async (client) => {
      try {
        // WITH (FORCE) (PostgreSQL 13+) also ends connections a crashed run may have left.
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } catch {
        await client.query(`DROP DATABASE IF EXISTS "${name}"`)
      }
    })
    debug(`dropped temporary shadow database ${name}`)
  } catch (error) {
    log('WARN', { message: `Could not drop temporary shadow database "${name}": ${/** @type {Error} */ (error).message}` })
  }
}

/**
 * Resolve a PGlite extension module for a `CREATE EXTENSION` name.
 * @param {string} name e.g. `uuid-ossp`, `citext`, `vector`
 * @returns {Promise<[string, object] | undefined>}
 */
async function loadPgliteExtension(name) {
  const id = name.replaceAll('-', '_')
  const candidates = [`@electric-sql/pglite/contrib/${id}`, `@electric-sql/pglite-${id}`, `@electric-sql/pglite-pg${id}`]
  for (const spec of candidates) {
    try {
      const mod = await import(spec)
      const ext = mod[id] ?? Object.values(mod).find((v) => v && typeof v === 'object' && typeof v.setup === 'function')
      if (ext) return [id, ext]
    } catch {
      // not available under this name
    }
  }
  debug(`no PGlite extension module found for "${name}"`)
  return undefined
}

/**
 * An in-memory PGlite behind an ephemeral TCP socket server (127.0.0.1, port
 * 0), reachable through adapter-pg like any PostgreSQL server.
 */
class PgliteShadowServer {
  /** @param {string[]} extensionNames */
  static async start(extensionNames) {
    const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite-socket'),
    ])
    const extensions = Object.fromEntries(
      (await Promise.all(extensionNames.map(loadPgliteExtension))).filter((e) => e !== undefined),
    )
    const db = await createPglite(PGlite, extensions)
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 })
    try {
      await server.start()
    } catch (error) {
      await db.close().catch(() => {})
      throw error
    }
    const roleCount = await countRoles(db)
    debug(`started PGlite shadow database at ${server.getServerConn()} (extensions: ${Object.keys(extensions).join(',') || 'none'})`)
    return new PgliteShadowServer(db, server, extensionNames, roleCount)
  }

  /**
   * @param {import('@electric-sql/pglite').PGlite} db
   * @param {import('@electric-sql/pglite-socket').PGLiteSocketServer} server
   * @param {string[]} extensionNames
   * @param {number} roleCount
   */
  constructor(db, server, extensionNames, roleCount) {
    this.db = db
    this.server = server
    this.extensionNames = new Set(extensionNames)
    this.roleCount = roleCount
    this.conn = parseConnection(`postgresql://postgres@${server.getServerConn()}/postgres`)
  }

  /** @param {string[]} extensionNames */
  provides(extensionNames) {
    return extensionNames.every((e) => this.extensionNames.has(e))
  }

  /**
   * Empty the database for the next shadow request of this process (starting
   * PGlite costs seconds; one `migrate dev` asks for several shadow
   * databases). False if it cannot be made pristine (a migration created
   * cluster-wide roles): a fresh instance is needed then.
   */
  async reset() {
    await this.db.exec(RESET_DATABASE_SQL)
    return (await countRoles(this.db)) === this.roleCount
  }

  async close() {
    await this.server.stop().catch((e) => debug('PGlite socket server stop failed', e))
    await this.db.close().catch((e) => debug('PGlite close failed', e))
    debug('stopped PGlite shadow database')
  }
}

/**
 * `PGlite.create()` with a cached pristine data directory (see module doc).
 * @param {typeof import('@electric-sql/pglite').PGlite} PGlite
 * @param {Record<string, any>} extensions
 */
async function createPglite(PGlite, extensions) {
  const cacheFile = pgliteTemplatePath()
  if (cacheFile && fs.existsSync(cacheFile)) {
    try {
      const loadDataDir = new Blob([fs.readFileSync(cacheFile)], { type: 'application/x-gzip' })
      return await PGlite.create({ extensions, loadDataDir })
    } catch (error) {
      debug('cached PGlite data directory unusable, recreating it', error)
      fs.rmSync(cacheFile, { force: true })
    }
  }
  const db = await PGlite.create({ extensions })
  if (cacheFile) {
    try {
      const dump = await db.dumpDataDir('gzip')
      fs.mkdirSync(path.dirname(cacheFile), { recursive: true })
      // Write then rename: concurrent engines never read a partial file.
      const tmp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()))
      fs.renameSync(tmp, cacheFile)
    } catch (error) {
      debug('could not cache the PGlite data directory', error)
    }
  }
  return db
}

/** @returns {string | undefined} */
function pgliteTemplatePath() {
  if (process.env.PRISMA_SHADOW_PGLITE_CACHE === '0') return undefined
  try {
    const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'))
    const pkg = JSON.parse(fs.readFileSync(path.resolve(path.dirname(entry), '../package.json'), 'utf8'))
    return path.join(os.tmpdir(), 'prisma-schema-engine', `pglite-${pkg.version}-datadir.tar.gz`)
  } catch {
    return undefined
  }
}

/** @param {import('@electric-sql/pglite').PGlite} db */
async function countRoles(db) {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM pg_roles')
  return /** @type {{ n: number }} */ (rows[0]).n
}
