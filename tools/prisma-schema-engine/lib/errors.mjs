/**
 * User-facing errors in the shape of the native engine (`user_facing_errors`
 * crate): `{ is_panic, message, meta, error_code }` for known errors and
 * `{ is_panic, message, backtrace }` for unknown ones. The CLI turns a JSON-RPC
 * error whose `data` has `error_code` into e.g. "P3006 …", and
 * `data.is_panic` into a crash report.
 */

/** A Prisma error with a `Pxxxx` code (or none) that can be rendered like the native engine. */
export class UserFacingError extends Error {
  /**
   * @param {string} message
   * @param {{ code?: string, meta?: Record<string, unknown>, isPanic?: boolean, backtrace?: string | null }} [opts]
   */
  constructor(message, { code, meta = {}, isPanic = false, backtrace = null } = {}) {
    super(message)
    this.name = 'UserFacingError'
    this.code = code
    this.meta = meta
    this.isPanic = isPanic
    this.backtrace = backtrace
  }

  /** @returns {Record<string, unknown>} the `data` payload of a JSON-RPC error */
  toData() {
    return this.code
      ? { is_panic: this.isPanic, message: this.message, meta: this.meta, error_code: this.code }
      : { is_panic: this.isPanic, message: this.message, backtrace: this.backtrace }
  }
}

/**
 * Normalise anything thrown by the wasm engine, the adapter or our own code.
 * Wasm errors are `Error`s named `SchemaConnectorError` with an optional
 * `code` property (e.g. `P3005`).
 * @param {unknown} error
 * @returns {UserFacingError}
 */
export function toUserFacing(error) {
  if (error instanceof UserFacingError) return error
  if (error instanceof Error) {
    const code = typeof (/** @type {any} */ (error).code) === 'string' && /^P\d{4}$/.test(/** @type {any} */ (error).code)
      ? /** @type {any} */ (error).code
      : undefined
    return new UserFacingError(error.message, { code, backtrace: code ? null : (error.stack ?? null) })
  }
  return new UserFacingError(String(error))
}

/**
 * @param {UserFacingError} err
 * @returns {{ code: number, message: string, data: Record<string, unknown> }} JSON-RPC error object
 */
export function toJsonRpcError(err) {
  return {
    // Same as schema-core's render_jsonrpc_error: the JSON-RPC code is fixed,
    // the Prisma error code lives in `data.error_code`.
    code: 4466,
    message: 'An error happened. Check the data field for details.',
    data: err.toData(),
  }
}

/** @param {{ host: string, port: number }} c */
export const databaseNotReachable = ({ host, port }) =>
  new UserFacingError(
    `Can't reach database server at \`${host}\`:\`${port}\`\n\nPlease make sure your database server is running at \`${host}\`:\`${port}\`.`,
    { code: 'P1001', meta: { database_host: host, database_port: port } },
  )

/** @param {{ host: string, port: number, database: string }} c */
export const databaseDoesNotExist = ({ host, port, database }) =>
  new UserFacingError(
    `Database \`${database}\` does not exist on the database server at \`${host}:${port}\`.`,
    { code: 'P1003', meta: { database_name: database, database_host: host, database_port: port } },
  )

/** @param {{ host: string, port: number, database: string }} c */
export const databaseAlreadyExists = ({ host, port, database }) =>
  new UserFacingError(
    `Database \`${database}\` already exists on the database server at \`${host}:${port}\``,
    { code: 'P1009', meta: { database_name: database, database_host: host, database_port: port } },
  )

/** @param {{ host: string, user: string }} c */
export const incorrectCredentials = ({ host, user }) =>
  new UserFacingError(
    `Authentication failed against database server at \`${host}\`, the provided database credentials for \`${user}\` are not valid.\n\nPlease make sure to provide valid database credentials for the database server at \`${host}\`.`,
    { code: 'P1000', meta: { database_user: user, database_host: host } },
  )

/** @param {{ user: string, database: string }} c */
export const accessDenied = ({ user, database }) =>
  new UserFacingError(`User \`${user}\` was denied access on the database \`${database}\``, {
    code: 'P1010',
    meta: { database_user: user, database_name: database },
  })

/** @param {string} message */
export const tlsError = (message) =>
  new UserFacingError(`Error opening a TLS connection: ${message}`, { code: 'P1011', meta: { message } })

/** @param {string} details */
export const invalidConnectionString = (details) =>
  new UserFacingError(`The provided database string is invalid. ${details}`, { code: 'P1013', meta: { details } })

const SOCKET_UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'])

/**
 * Map an error from `pg` (connecting / running a probe query) to the
 * user-facing error the native engine would report for that connection.
 * @param {any} error
 * @param {{ host: string, port: number, database: string, user: string }} conn
 * @returns {UserFacingError}
 */
export function mapPgConnectionError(error, conn) {
  const code = error?.code
  const message = String(error?.message ?? error)
  if (SOCKET_UNREACHABLE.has(code) || /timeout expired|Connection terminated/i.test(message)) return databaseNotReachable(conn)
  switch (code) {
    case '3D000':
      return databaseDoesNotExist(conn)
    case '28P01':
      return incorrectCredentials(conn)
    case '28000':
      // "role x does not exist" / "no pg_hba.conf entry ..."
      return /database/i.test(message) && !/role/i.test(message) ? accessDenied(conn) : incorrectCredentials(conn)
    case '42501':
      return accessDenied(conn)
  }
  if (/SSL|TLS|certificate/i.test(message)) return tlsError(message)
  return toUserFacing(error)
}
