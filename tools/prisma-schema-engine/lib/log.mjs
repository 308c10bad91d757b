/**
 * Logging for the schema-engine stand-in.
 *
 * The Prisma CLI treats the engine's **stdout** as the JSON-RPC channel and its
 * **stderr** as a stream of JSON log lines in the `tracing-subscriber` JSON
 * format of the native engine:
 *
 *   {"timestamp":"…","level":"INFO","fields":{"message":"…"},"target":"…"}
 *
 * In server mode the CLI keeps every `fields.message` and remembers the last
 * `level: "ERROR"` line (shown when the engine exits unexpectedly); for the
 * `cli …` sub-commands it parses all stderr lines after the first one as JSON
 * and looks for an ERROR line with target `schema_engine::logger` carrying
 * `fields.error_code` / `fields.message`. So: nothing but JSON lines on stderr,
 * and nothing at all on stdout except JSON-RPC messages.
 *
 * Free-form debugging goes to the file named by `SCHEMA_ENGINE_DEBUG_LOG`.
 */
import fs from 'node:fs'
import util from 'node:util'

/** @type {Record<string, number>} */
const LEVELS = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 }

/** Minimum level forwarded to stderr, from RUST_LOG (the CLI sets `info`). */
function minLevel() {
  const raw = (process.env.RUST_LOG ?? 'info').toLowerCase()
  // RUST_LOG may be a directive list like `info,quaint=debug`; the first bare level wins.
  const bare = raw.split(',').find((d) => !d.includes('=')) ?? 'info'
  return LEVELS[bare.trim().toUpperCase()] ?? LEVELS.INFO
}
const MIN_LEVEL = minLevel()

const debugFile = process.env.SCHEMA_ENGINE_DEBUG_LOG

/**
 * Append a free-form line to the debug log file (if enabled). Never throws.
 * @param {...unknown} args
 */
export function debug(...args) {
  if (!debugFile) return
  try {
    fs.appendFileSync(debugFile, `${new Date().toISOString()} [${process.pid}] ${util.format(...args)}\n`)
  } catch {
    // debugging must never break the engine
  }
}

/**
 * Write one JSON log line to stderr.
 * @param {'TRACE'|'DEBUG'|'INFO'|'WARN'|'ERROR'} level
 * @param {Record<string, unknown>} fields must contain `message`
 * @param {string} [target]
 */
export function log(level, fields, target = 'schema_engine_js') {
  debug(`log ${level}`, JSON.stringify(fields))
  if ((LEVELS[level] ?? LEVELS.INFO) < MIN_LEVEL && level !== 'ERROR') return
  writeStderrLine({ timestamp: new Date().toISOString(), level, fields, target })
}

/**
 * Forward a log line produced by the wasm engine's log callback (a JSON string
 * without timestamp) to stderr in the native format.
 * @param {unknown} line
 */
export function forwardWasmLog(line) {
  let entry
  try {
    entry = typeof line === 'string' ? JSON.parse(line) : line
  } catch {
    entry = { level: 'INFO', fields: { message: String(line) }, target: 'schema_engine_wasm' }
  }
  if (!entry || typeof entry !== 'object') return
  const level = String(entry.level ?? 'INFO').toUpperCase()
  const fields = entry.fields && typeof entry.fields === 'object' ? entry.fields : { message: String(entry.message ?? '') }
  if (typeof fields.message !== 'string') fields.message = String(fields.message ?? '')
  log(/** @type {any} */ (level), fields, entry.target ?? 'schema_engine_wasm')
}

/** @param {object} obj */
export function writeStderrLine(obj) {
  try {
    process.stderr.write(`${JSON.stringify(obj)}\n`)
  } catch {
    // stderr closed: nothing sensible left to do
  }
}

/**
 * Keep stdout clean: anything that would print through `console` (third-party
 * libraries, PGlite, pg) goes to the debug file instead, and Node process
 * warnings become JSON WARN lines instead of free text on stderr (the CLI
 * would fail to parse them after a `cli …` sub-command error).
 */
export function guardStdio() {
  const toDebug = (/** @type {string} */ kind) => (/** @type {unknown[]} */ ...args) => debug(`console.${kind}`, ...args)
  console.log = toDebug('log')
  console.info = toDebug('info')
  console.debug = toDebug('debug')
  console.warn = toDebug('warn')
  console.error = toDebug('error')
  console.trace = toDebug('trace')
  process.removeAllListeners('warning')
  process.on('warning', (w) => log('WARN', { message: `${w.name}: ${w.message}` }))
}
