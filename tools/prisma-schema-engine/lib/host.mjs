/**
 * Owns the wasm schema engine instance(s), their driver adapters and shadow
 * databases for one engine process.
 */
import { adapterUtils, offlineAdapter, openAdapter } from './adapter.mjs'
import { parseConnection } from './connection.mjs'
import {
  databaseAlreadyExists,
  databaseDoesNotExist,
  mapPgConnectionError,
  toUserFacing,
  UserFacingError,
} from './errors.mjs'
import { debug, forwardWasmLog } from './log.mjs'
import { ShadowDatabaseProvider, withClient } from './shadow.mjs'
import { loadSchemaEngineWasm } from './wasm.mjs'

/**
 * @typedef {{ url?: string, shadowDatabaseUrl?: string }} Datasource
 * @typedef {import('@prisma/schema-engine-wasm').SchemaEngine} WasmEngine
 * @typedef {{
 *   engine: WasmEngine,
 *   errorRegistry: { consumeError(id: number): { error: unknown } | undefined },
 *   shadows: ShadowDatabaseProvider,
 *   mainAdapters: Set<any>,
 * }} EngineInstance
 */

/**
 * Check that a database is reachable, like the native engine's
 * `ensureConnectionValidity` / `cli can-connect-to-database`, reporting
 * P1000/P1001/P1003/P1010/P1011/P1013 errors.
 * @param {string | undefined} url
 */
export async function probeConnection(url) {
  const conn = parseConnection(url ?? '')
  try {
    await withClient(conn, (client) => client.query('SELECT 1'))
  } catch (error) {
    throw mapPgConnectionError(error, conn)
  }
}

/**
 * Run `fn` on a connection to a maintenance database of the server of `url`
 * (`postgres`, falling back to `template1`), for CREATE/DROP DATABASE.
 * @template T
 * @param {string} url
 * @param {(client: import('pg').Client, conn: import('./connection.mjs').Connection) => Promise<T>} fn
 */
async function withMaintenanceClient(url, fn) {
  const conn = parseConnection(url)
  let lastError
  for (const db of ['postgres', 'template1']) {
    const maintenance = conn.withDatabase(db)
    try {
      return await withClient(maintenance, (client) => fn(client, conn))
    } catch (error) {
      lastError = error
      if (/** @type {any} */ (error)?.code !== '3D000') break
    }
  }
  throw mapPgConnectionError(lastError, conn)
}

/**
 * @param {string | undefined} url
 * @returns {Promise<string>} the created database's name
 */
export async function createDatabase(url) {
  const conn = parseConnection(url ?? '')
  return withMaintenanceClient(conn.url, async (client) => {
    try {
      await client.query(`CREATE DATABASE "${conn.database.replaceAll('"', '""')}"`)
    } catch (error) {
      if (/** @type {any} */ (error)?.code === '42P04') throw databaseAlreadyExists(conn)
      throw error
    }
    return conn.database
  })
}

/** @param {string | undefined} url */
export async function dropDatabase(url) {
  const conn = parseConnection(url ?? '')
  await withMaintenanceClient(conn.url, async (client) => {
    try {
      await client.query(`DROP DATABASE "${conn.database.replaceAll('"', '""')}"`)
    } catch (error) {
      if (/** @type {any} */ (error)?.code === '3D000') throw databaseDoesNotExist(conn)
      throw error
    }
  })
}

export class EngineHost {
  /**
   * @param {{ datasource: Datasource, datamodels?: [string, string][] }} opts
   */
  constructor({ datasource, datamodels }) {
    this.datasource = datasource
    this.datamodels = datamodels && datamodels.length > 0 ? datamodels : undefined
    /** @type {Map<string, Promise<EngineInstance>>} url -> engine */
    this.instances = new Map()
    /** @type {Promise<EngineInstance> | undefined} */
    this.offline = undefined
  }

  /** @returns {string} the main datasource URL */
  primaryUrl() {
    const url = this.datasource.url
    if (!url) {
      throw new UserFacingError(
        'The datasource URL is missing: set `datasource.url` in your Prisma config file (prisma.config.ts).',
      )
    }
    return url
  }

  /**
   * The engine for `url` (default: the main datasource). Engines are created
   * lazily (the native engine also connects lazily) and re-created after a
   * failed start.
   * @param {string} [url]
   * @returns {Promise<EngineInstance>}
   */
  instance(url) {
    const key = url ?? this.primaryUrl()
    let promise = this.instances.get(key)
    if (!promise) {
      promise = this.#create(key)
      this.instances.set(key, promise)
      promise.catch(() => this.instances.delete(key))
    }
    return promise
  }

  /**
   * An engine that does not touch the main database (see offlineAdapter);
   * shadow databases still work (PGlite fallback when the server is down).
   * @returns {Promise<EngineInstance>}
   */
  offlineInstance() {
    this.offline ??= (async () => {
      let main
      try {
        main = parseConnection(this.datasource.url ?? '')
      } catch {
        main = undefined
      }
      const shadows = new ShadowDatabaseProvider({
        main: main ?? parseConnection('postgresql://localhost/offline'),
        shadowUrl: this.datasource.shadowDatabaseUrl,
      })
      const factory = {
        provider: 'postgres',
        adapterName: '@prisma/adapter-pg',
        connect: async () => offlineAdapter(main),
        connectToShadowDb: () => shadows.open(),
      }
      const bound = adapterUtils.bindMigrationAwareSqlAdapterFactory(/** @type {any} */ (factory))
      const { SchemaEngine } = await loadSchemaEngineWasm()
      const engine = await SchemaEngine.new({ datamodels: this.datamodels }, forwardWasmLog, bound)
      debug('offline wasm engine ready')
      return { engine, errorRegistry: bound.errorRegistry, shadows, mainAdapters: new Set() }
    })()
    this.offline.catch(() => (this.offline = undefined))
    return this.offline
  }

  /**
   * @param {string} url
   * @returns {Promise<EngineInstance>}
   */
  async #create(url) {
    const main = parseConnection(url)
    const shadows = new ShadowDatabaseProvider({
      main,
      // The configured shadow database belongs to the configured main database only.
      shadowUrl: url === this.datasource.url ? this.datasource.shadowDatabaseUrl : undefined,
    })
    /** @type {Set<any>} */
    const mainAdapters = new Set()
    /** SqlMigrationAwareDriverAdapterFactory as expected by SchemaEngine.new() */
    const factory = {
      provider: 'postgres',
      adapterName: '@prisma/adapter-pg',
      async connect() {
        const adapter = await openAdapter(main, { onDispose: async () => void mainAdapters.delete(adapter) })
        mainAdapters.add(adapter)
        return adapter
      },
      connectToShadowDb: () => shadows.open(),
    }
    // Wraps every call in Result objects and keeps non-driver JS errors in a
    // registry (the engine only sees `GenericJs { id }`).
    const bound = adapterUtils.bindMigrationAwareSqlAdapterFactory(/** @type {any} */ (factory))
    const { SchemaEngine } = await loadSchemaEngineWasm()
    try {
      const engine = await SchemaEngine.new({ datamodels: this.datamodels }, forwardWasmLog, bound)
      debug(`wasm engine ready for ${main.host}:${main.port}/${main.database}`)
      return { engine, errorRegistry: bound.errorRegistry, shadows, mainAdapters }
    } catch (error) {
      debug('SchemaEngine.new failed', error)
      await Promise.allSettled([...mainAdapters].map((a) => a.dispose()))
      // Errors raised while the engine starts carry no Prisma error code; find
      // out what is wrong with the connection the way the native engine reports it.
      await probeConnection(url)
      throw this.explain(error, bound.errorRegistry)
    }
  }

  /**
   * Turn an error thrown by a wasm engine call into a UserFacingError,
   * resolving references to JS errors thrown by our adapters ("External
   * error id#N", the engine only sees `GenericJs { id }`) to the original error.
   * @param {unknown} error
   * @param {EngineInstance['errorRegistry']} [registry]
   */
  explain(error, registry) {
    const message = error instanceof Error ? error.message : String(error)
    const match = /External error id#(\d+)|GenericJs\s*\{\s*id:\s*(\d+)/.exec(message)
    if (match && registry) {
      const record = registry.consumeError(Number(match[1] ?? match[2]))
      if (record) return toUserFacing(record.error)
    }
    return toUserFacing(error)
  }

  /**
   * Close everything: shadow databases first (temporary databases get
   * dropped), then the main pools, then the wasm engines.
   * @param {{ freeEngines?: boolean }} [opts] do not free engines with calls in flight
   */
  async dispose({ freeEngines = true } = {}) {
    const instances = await Promise.allSettled([...this.instances.values(), ...(this.offline ? [this.offline] : [])])
    this.instances.clear()
    this.offline = undefined
    for (const settled of instances) {
      if (settled.status !== 'fulfilled') continue
      const { engine, shadows, mainAdapters } = settled.value
      await shadows.disposeAll()
      await Promise.allSettled([...mainAdapters].map((a) => a.dispose()))
      if (freeEngines) {
        try {
          engine.free()
        } catch (error) {
          debug('engine.free failed', error)
        }
      }
    }
  }
}
