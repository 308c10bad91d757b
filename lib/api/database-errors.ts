// Connection-level failures: the database is down, restarting or out of connections.
// These are the service's trouble, not the caller's, and worth a retry (503), not a 500.
const unavailableCodes: ReadonlySet<string> = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'])
// What @prisma/adapter-pg reports (meta.driverAdapterError.cause.kind) when it cannot talk to the server.
const unavailableKinds: ReadonlySet<string> = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections'])
// SQLSTATEs: class 08 (connection exception), 57P01–57P03 (terminated by an administrator or
// a crash, cannot connect now: shutting down, starting up, in recovery), 53300 (too many connections),
// 25006 (a write reached a read-only server: the primary is switching, lib/db/failover-retry.ts).
const unavailableSqlStates = /^(08[0-9A-Z]{3}|57P0[1-3]|53300|25006)$/
// pg raises plain Errors without a code for a connection that broke under a query: the
// message is all there is. "not queryable" comes when a transaction's next statement (its
// COMMIT or ROLLBACK, say) meets the connection the server has just cut.
const unavailableMessages = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|connection timeout|timeout exceeded when trying to connect|has encountered a connection error and is not queryable|Client was closed and is not queryable|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|terminating connection (due to administrator command|because of crash of another server process|due to unexpected postmaster exit)|Can't reach database server|Server has closed the connection/i

type Candidate = { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; name?: unknown; meta?: { driverAdapterError?: unknown } }

export function isDatabaseUnavailable(error: unknown): boolean {
  // The error, its causes, and the driver adapter's error that Prisma keeps in meta.
  const pending: unknown[] = [error]
  for (let seen = 0; pending.length > 0 && seen < 10; seen++) {
    const current = pending.shift()
    if (!current || typeof current !== 'object') continue
    const candidate = current as Candidate
    if (typeof candidate.code === 'string' && (unavailableCodes.has(candidate.code) || unavailableSqlStates.test(candidate.code))) return true
    if (typeof candidate.originalCode === 'string' && unavailableSqlStates.test(candidate.originalCode)) return true
    if (typeof candidate.kind === 'string' && unavailableKinds.has(candidate.kind)) return true
    if (candidate.name === 'PrismaClientInitializationError') return true
    if (typeof candidate.message === 'string' && unavailableMessages.test(candidate.message)) return true
    pending.push(candidate.cause, candidate.meta?.driverAdapterError)
  }
  return false
}
