import { processSingleton } from '../process-singleton.ts'
import { hotSetting } from '../config/hot-setting.ts'
import { logDestination, requestLogger } from './logger.ts'

/** What the one line per answered /v1 request says (lib/ops/observe-api-request.ts). */
export type AccessLogFields = {
  requestId: string
  method: string
  /** The route's template, never the requested path: a query string may carry a token or article text. */
  route: string
  status: number
  durationMs: number
  tenantId?: string
  tokenId?: string
  problemCode?: string
}

/**
 * The line in the shape of every other log line (pino's: level, time, the instance's name if it
 * has one, the fields, msg), written out by hand: pino's generic serialiser and its
 * destination's per-line bookkeeping were about a tenth of a cached GET's CPU (issue 50's
 * profile). Only the strings that come from outside this process's own code are escaped.
 */
export function accessLogLine(fields: AccessLogFields, time: number, base: string = baseFields()): string {
  let line = `{"level":30,"time":${time}${base},"request_id":${JSON.stringify(fields.requestId)}`
  if (fields.tenantId !== undefined) line += `,"tenant_id":${JSON.stringify(fields.tenantId)}`
  if (fields.tokenId !== undefined) line += `,"token_id":${JSON.stringify(fields.tokenId)}`
  line += `,"method":${JSON.stringify(fields.method)},"route":${JSON.stringify(fields.route)},"status":${fields.status},"duration_ms":${Math.round(fields.durationMs * 10) / 10}`
  if (fields.problemCode) line += `,"problem":${JSON.stringify(fields.problemCode)}`
  return `${line},"msg":"api request"}\n`
}

// As the other lines (lib/ops/logger.ts): the instance's name when INSTANCE_NAME is set (npm run cluster).
function baseFields(): string {
  const instance = hotSetting('INSTANCE_NAME')
  return instance ? `,"instance":${JSON.stringify(instance)}` : ''
}

// Lines are gathered into one write of this many characters, or every flushEveryMs, whichever
// comes first: a write per line was a system call per request. A SIGKILL loses at most the
// last flushEveryMs of these lines (they are diagnostics; the key's request log and every
// change are in the database).
const batchCharacters = 16 * 1024
const flushEveryMs = 200

type AccessLog = {
  /** Whether lines are written at all (LOG_LEVEL at info or below). */
  enabled(): boolean
  append(line: string): void
  /** Writes what is waiting (for tests and before exit). */
  flush(): void
}

function createAccessLog(): AccessLog {
  // As the other lines decide it (LOG_LEVEL, 'silent' included).
  const enabled = requestLogger.isLevelEnabled('info')
  // The other lines' destination, written synchronously (logDestination says why), so each
  // batch goes out whole, in order with every other line, and before the process ends.
  const destination = logDestination()
  let waiting = ''
  const flush = () => {
    if (waiting === '') return
    const text = waiting
    waiting = ''
    destination.write(text)
  }
  setInterval(flush, flushEveryMs).unref()
  process.once('exit', flush)
  return {
    enabled: () => enabled,
    append(line) {
      waiting += line
      if (waiting.length >= batchCharacters) flush()
    },
    flush,
  }
}

export const accessLog: AccessLog = processSingleton('access log', createAccessLog)
