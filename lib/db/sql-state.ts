type Candidate = { code?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } }

/**
 * The PostgreSQL error an error carries, wherever the driver put it: node-postgres's own error
 * (code, detail), or the one Prisma's adapter wraps (cause, meta.driverAdapterError).
 */
export function postgresError(error: unknown, matches: (code: string) => boolean): { code: string; detail?: string } | undefined {
  const pending: unknown[] = [error]
  for (let seen = 0; pending.length > 0 && seen < 10; seen++) {
    const current = pending.shift()
    if (!current || typeof current !== 'object') continue
    const candidate = current as Candidate & { detail?: unknown }
    if (typeof candidate.code === 'string' && matches(candidate.code)) return { code: candidate.code, detail: typeof candidate.detail === 'string' ? candidate.detail : undefined }
    pending.push(candidate.cause, candidate.meta?.driverAdapterError)
  }
  return undefined
}
