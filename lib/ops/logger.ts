import { pino, type Logger } from 'pino'
import { processSingleton } from '../process-singleton.ts'

type LogLine = { level: number; time: number; msg?: string; [field: string]: unknown }

const levelNames: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }

/** One readable line per entry for a developer's terminal; production keeps pino's JSON. */
function prettyLine(line: LogLine): string {
  const { level, time, msg, pid: _pid, hostname: _hostname, ...fields } = line
  const rest = Object.entries(fields)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ')
  return `${new Date(time).toISOString().slice(11, 23)} ${(levelNames[level] ?? String(level)).toUpperCase().padEnd(5)} ${msg ?? ''}${rest ? ` ${rest}` : ''}\n`
}

// A command whose stdout is its output (a token, a password, an export archive) logs to stderr.
const logFd = () => (process.env.LOG_STREAM === 'stderr' ? 2 : 1)

/**
 * Where every JSON line goes (stdout, or stderr with LOG_STREAM=stderr): one destination for the
 * loggers and the access log's batches (lib/ops/access-log.ts), written synchronously, as Node
 * writes console lines to a pipe. Two writers on one pipe cut each other's lines once a write
 * passes 4 KB, which a JSON-lines collector drops; and an asynchronous write still in flight
 * when the process exits (the drain's process.exit) is lost.
 */
export function logDestination(): { write: (text: string) => unknown } {
  return processSingleton('log destination', () => pino.destination({ dest: logFd(), sync: true }))
}

function createLogger({ redact }: { redact: boolean }): Logger {
  const options = {
    level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'warn' : 'info'),
    // Every line names its instance (INSTANCE_NAME, as npm run cluster sets it), so lines from
    // several instances gathered in one place still say where they came from.
    base: process.env.INSTANCE_NAME ? { instance: process.env.INSTANCE_NAME } : undefined,
    // Defence in depth: nothing logs these, and if something ever did, they never reach the log.
    ...(redact && { redact: { paths: ['authorization', 'token', 'secret', 'password', '*.authorization', '*.token', '*.secret', '*.password'], censor: '[redacted]' } }),
  }
  if (process.env.NODE_ENV !== 'development') return pino(options, logDestination())
  return pino(options, { write: (line: string) => void (logFd() === 2 ? process.stderr : process.stdout).write(prettyLine(JSON.parse(line) as LogLine)) })
}

/** The process's structured logger: JSON lines on stdout (pretty in `npm run dev`; stderr with LOG_STREAM=stderr). */
export const logger: Logger = processSingleton('logger', () => createLogger({ redact: true }))

/**
 * The one line per /v1 request (lib/ops/observe-api-request.ts), whose fields are ids, a route
 * template and numbers made there: nothing to redact, and redaction was a tenth of the cost of
 * answering a cached GET.
 */
export const requestLogger: Logger = processSingleton('request logger', () => createLogger({ redact: false }))
