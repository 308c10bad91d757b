/**
 * Driver adapters for the wasm schema engine, built on `@prisma/adapter-pg`
 * with the fixes the schema engine needs (see comments at each fix).
 */
import { createRequire } from 'node:module'
import { PrismaPg } from '@prisma/adapter-pg'
import { debug } from './log.mjs'

// `@prisma/driver-adapter-utils` is a dependency of @prisma/adapter-pg, not of
// this project: resolve it from there so we always get the copy adapter-pg uses.
const requireFromAdapter = createRequire(import.meta.resolve('@prisma/adapter-pg'))
/** @type {typeof import('@prisma/driver-adapter-utils')} */
export const adapterUtils = requireFromAdapter('@prisma/driver-adapter-utils')
const { ColumnTypeEnum } = adapterUtils

/** PostgreSQL's internal single-byte `"char"` type (pg_catalog.char, oid 18). */
const PG_CHAR_OID = 18
/** Any oid >= this is user-defined; adapter-pg maps those to Text instead of throwing. */
const PG_TEXT_OID = 25

/**
 * Result rows (array identity) -> indexes of `"char"` columns. Keyed by the
 * rows array so concurrent queries on one queryable cannot mix their marks.
 * @type {WeakMap<unknown[], number[]>}
 */
const charColumnsByRows = new WeakMap()

/**
 * FIX (adapter-pg 7.10): its fieldToColumnType() has no mapping for `"char"`
 * (oid 18), which the schema describer selects from pg_catalog (e.g.
 * pg_class.relkind, pg_constraint.contype, pg_attribute.attidentity), so every
 * introspection failed with "Column type 'char' could not be deserialized from
 * the database". Reporting it as Text is not enough: the engine then panics on
 * PGlite because it decodes these columns as the Character column type. So we
 * let adapter-pg see TEXT (its performIO result, before it maps types) and put
 * ColumnTypeEnum.Character back into the result set afterwards.
 *
 * Works on the adapter and on its transactions (both are PgQueryable).
 * @template {object} Q
 * @param {Q} queryable
 * @returns {Q}
 */
function patchCharColumns(queryable) {
  const q = /** @type {any} */ (queryable)
  if (typeof q.performIO !== 'function' || typeof q.queryRaw !== 'function') {
    throw new Error('Unexpected @prisma/adapter-pg internals: PgQueryable.performIO/queryRaw not found')
  }
  const performIO = q.performIO
  const queryRaw = q.queryRaw
  q.performIO = async function patchedPerformIO(/** @type {unknown} */ query) {
    const result = await performIO.call(this, query)
    const fields = result?.fields
    if (Array.isArray(fields)) {
      /** @type {number[]} */
      const charIdx = []
      fields.forEach((f, i) => {
        if (f.dataTypeID === PG_CHAR_OID) charIdx.push(i)
      })
      if (charIdx.length > 0) {
        result.fields = fields.map((f, i) => (charIdx.includes(i) ? { ...f, dataTypeID: PG_TEXT_OID } : f))
        if (Array.isArray(result.rows)) charColumnsByRows.set(result.rows, charIdx)
      }
    }
    return result
  }
  q.queryRaw = async function patchedQueryRaw(/** @type {unknown} */ query) {
    const resultSet = await queryRaw.call(this, query)
    const charIdx = charColumnsByRows.get(resultSet.rows)
    if (charIdx) for (const i of charIdx) resultSet.columnTypes[i] = ColumnTypeEnum.Character
    return resultSet
  }
  return queryable
}

/**
 * FIX (adapter-pg 7.10): PrismaPgAdapter.executeScript() splits the script on
 * every ";" and runs the pieces one by one, which breaks migration scripts
 * containing ";" inside function bodies, DO blocks or string literals. Send the
 * whole script as ONE simple-protocol query instead: that is what the native
 * engine does (raw_cmd), including its implicit-transaction semantics.
 * @param {any} adapter a PrismaPgAdapter
 */
function patchExecuteScript(adapter) {
  adapter.executeScript = async function executeWholeScript(/** @type {string} */ script) {
    try {
      await this.client.query(script)
    } catch (error) {
      this.onError(error) // adapter-pg's error mapping; always throws
    }
  }
}

/**
 * Open an adapter-pg adapter (pool of one connection) with our fixes applied.
 * @param {import('./connection.mjs').Connection} conn
 * @param {{ onDispose?: () => Promise<void>, label?: string }} [opts]
 *   `onDispose` runs after the pool was closed (e.g. to drop a temp database).
 * @returns {Promise<any>} a SqlDriverAdapter
 */
export async function openAdapter(conn, { onDispose, label = 'main' } = {}) {
  const factory = new PrismaPg(conn.poolConfig(), conn.schema ? { schema: conn.schema } : undefined)
  const adapter = /** @type {any} */ (await factory.connect())
  patchCharColumns(adapter)
  patchExecuteScript(adapter)
  const startTransaction = adapter.startTransaction
  adapter.startTransaction = async function patchedStartTransaction(/** @type {unknown[]} */ ...args) {
    return patchCharColumns(await startTransaction.apply(this, args))
  }
  const dispose = adapter.dispose
  let disposed = false
  adapter.dispose = async function patchedDispose() {
    // (always on `adapter`: wrappers may call this detached)
    if (disposed) return
    disposed = true
    debug(`dispose ${label} adapter (${conn.host}:${conn.port}/${conn.database})`)
    try {
      await dispose.call(adapter) // ends the pg pool
    } finally {
      await onDispose?.()
    }
  }
  debug(`opened ${label} adapter (${conn.host}:${conn.port}/${conn.database})`)
  return adapter
}

export { PrismaPg }

/**
 * A stand-in adapter for when the database cannot be reached but the request
 * does not need it (e.g. `migrate diff --from-empty --to-schema … --script`,
 * which the native engine serves without a connection). It answers the one
 * query SchemaEngine.new() runs at start-up (schema exists / server version)
 * and reports every other query as P1001.
 * @param {{ host: string, port: number, schema?: string } | undefined} conn
 */
export function offlineAdapter(conn) {
  const unreachable = async () => {
    throw new adapterUtils.DriverAdapterError({
      kind: 'DatabaseNotReachable',
      host: conn?.host ?? 'localhost',
      port: conn?.port ?? 5432,
    })
  }
  return {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    async queryRaw(/** @type {{ sql: string }} */ query) {
      if (/numeric_version/.test(query.sql)) {
        return {
          columnNames: ['exists', 'version', 'numeric_version'],
          columnTypes: [ColumnTypeEnum.Boolean, ColumnTypeEnum.Text, ColumnTypeEnum.Int32],
          rows: [[true, 'PostgreSQL 16.0 (offline: no database connection)', 160000]],
        }
      }
      return unreachable()
    },
    executeRaw: unreachable,
    executeScript: unreachable,
    startTransaction: unreachable,
    getConnectionInfo: () => ({ schemaName: conn?.schema, supportsRelationJoins: true }),
    async dispose() {},
  }
}
