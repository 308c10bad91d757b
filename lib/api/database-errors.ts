// Connection-level failures: the database is down, restarting or out of connections.
// These are the service's trouble, not the caller's, and worth a retry (503), not a 500.
const unavailableCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037'])
const unavailableMessages = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|connection timeout|timeout exceeded when trying to connect|the database system is (starting up|shutting down)|terminating connection due to administrator command|Can't reach database server|Server has closed the connection/i

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown }
    if (typeof candidate.code === 'string' && unavailableCodes.has(candidate.code)) return true
    if (candidate.name === 'PrismaClientInitializationError') return true
    if (typeof candidate.message === 'string' && unavailableMessages.test(candidate.message)) return true
    current = candidate.cause
  }
  return false
}
