#!/usr/bin/env node
/**
 * Stand-in for Prisma's native `schema-engine` binary, for machines that
 * cannot download it from binaries.prisma.sh. Select it with
 *
 *   PRISMA_SCHEMA_ENGINE_BINARY=/abs/path/tools/prisma-schema-engine/schema-engine.mjs
 *
 * It speaks the native binary's protocol (what prisma/build/index.js expects
 * from `SchemaEngineCLI`):
 *
 *   schema-engine [--datamodels <file>]... [--datasource <json>]
 *                 [--enabled-preview-features <a,b>] [--extension-types <json>]
 *                 [cli <can-connect-to-database|create-database|drop-database>]
 *   schema-engine --version
 *
 * - server mode (no `cli`): line-delimited JSON-RPC 2.0 requests on stdin,
 *   responses on stdout. Each method is executed by the schema engine compiled
 *   to WebAssembly (@prisma/schema-engine-wasm, same engines commit as the
 *   CLI) over a PostgreSQL driver adapter (@prisma/adapter-pg). Errors are
 *   returned like the native engine does (JSON-RPC error 4466 with the Prisma
 *   error in `data`), so the CLI prints P1001/P3005/P3006/… as usual.
 * - `cli <command>`: one-shot commands; result/errors are JSON log lines on
 *   stderr, exit code 0/1.
 * - `--datasource` is `{"url": "...", "shadowDatabaseUrl": "..."}` (the
 *   `datasource` of prisma.config.ts).
 *
 * PostgreSQL only. See README.md next to this file.
 */
import fs from 'node:fs'
import readline from 'node:readline'
import { createDatabase, dropDatabase, EngineHost, probeConnection } from './lib/host.mjs'
import { toJsonRpcError, toUserFacing, UserFacingError } from './lib/errors.mjs'
import { debug, guardStdio, log, writeStderrLine } from './lib/log.mjs'
import { isWasmPanic, lastPanicMessage, loadSchemaEngineWasm } from './lib/wasm.mjs'

/** Engines commit of the CLI / wasm engine this stand-in is built for. */
const ENGINES_HASH = '0edf323efd1d98336f3f0a68684b56f689b900d3'

/**
 * @typedef {{
 *   datamodels: string[],
 *   datasource: import('./lib/host.mjs').Datasource,
 *   cliCommand?: string,
 *   version: boolean,
 *   help: boolean,
 * }} Args
 */

/**
 * @param {string[]} argv
 * @returns {Args}
 */
function parseArgs(argv) {
  /** @type {Args} */
  const args = { datamodels: [], datasource: {}, version: false, help: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const value = () => inline ?? argv[++i]
    switch (flag) {
      case '-d':
      case '--datamodel':
      case '--datamodels':
        args.datamodels.push(value())
        break
      case '--datasource': {
        const raw = value()
        try {
          args.datasource = JSON.parse(raw) ?? {}
        } catch {
          throw new UserFacingError(`Invalid --datasource JSON: ${raw}`)
        }
        break
      }
      case '--enabled-preview-features':
      case '--extension-types':
        debug(`ignoring ${flag} ${value()}`) // not applicable to the wasm engine
        break
      case '-V':
      case '--version':
        args.version = true
        break
      case '-h':
      case '--help':
        args.help = true
        break
      case 'cli':
        args.cliCommand = argv[++i] ?? ''
        break
      default:
        debug(`ignoring unknown argument ${arg}`)
    }
  }
  return args
}

/** @param {string[]} paths @returns {[string, string][]} */
function readDatamodels(paths) {
  return paths.map((p) => {
    try {
      return /** @type {[string, string]} */ ([p, fs.readFileSync(p, 'utf8')])
    } catch (error) {
      throw new UserFacingError(`Error opening datamodel file in \`${p}\`: ${/** @type {Error} */ (error).message}`)
    }
  })
}

// ---------------------------------------------------------------------------
// `cli <command>` mode
// ---------------------------------------------------------------------------

/**
 * @param {Args} args
 * @returns {Promise<number>} exit code
 */
async function runCliCommand(args) {
  // The CLI skips the first stderr line and parses every following line as
  // JSON, looking for an ERROR from target `schema_engine::logger`; so this
  // first line is written whatever RUST_LOG says.
  writeStderrLine({
    timestamp: new Date().toISOString(),
    level: 'INFO',
    fields: { message: 'Starting schema engine CLI', git_hash: ENGINES_HASH },
    target: 'schema_engine_cli',
  })
  const url = args.datasource.url
  try {
    if (!url) throw new UserFacingError('The datasource URL is missing: set `datasource.url` in your Prisma config file.')
    let message
    switch (args.cliCommand) {
      case 'can-connect-to-database':
        await probeConnection(url)
        message = 'Connection successful'
        break
      case 'create-database':
        message = `Database '${await createDatabase(url)}' was successfully created.`
        break
      case 'drop-database':
        await dropDatabase(url)
        message = 'The database was successfully dropped.'
        break
      default:
        throw new UserFacingError(`Unknown cli subcommand \`${args.cliCommand}\``)
    }
    log('INFO', { message }, 'schema_engine_cli::commands')
    return 0
  } catch (error) {
    const err = toUserFacing(error)
    // Same fields as the native engine's log_error_and_exit().
    writeStderrLine({
      timestamp: new Date().toISOString(),
      level: 'ERROR',
      fields: { is_panic: false, error_code: err.code ?? '', message: err.message },
      target: 'schema_engine::logger',
    })
    return 1
  }
}

// ---------------------------------------------------------------------------
// JSON-RPC server mode
// ---------------------------------------------------------------------------

/**
 * Concatenated SQL of the migrations carried by a request (to find the
 * extensions an in-memory PGlite shadow database must load).
 * @param {any} params
 */
function migrationsSqlOf(params) {
  /** @type {any[]} */
  const lists = [params?.migrationsList, params?.from, params?.to].filter((l) => l && Array.isArray(l.migrationDirectories))
  return lists
    .flatMap((l) => [
      l.shadowDbInitScript ?? '',
      ...l.migrationDirectories.map((/** @type {any} */ d) => (d.migrationFile?.content?.tag === 'ok' ? d.migrationFile.content.value : '')),
    ])
    .join('\n')
}

/**
 * The URL a request explicitly targets, if any (`ConnectionString` /
 * `url` datasource params); otherwise the main datasource is used.
 * @param {any} params
 * @returns {string | undefined}
 */
function explicitUrlOf(params) {
  for (const candidate of [params?.datasource, params?.datasourceType, params?.from, params?.to]) {
    if (candidate && typeof candidate.url === 'string' && (candidate.tag === 'ConnectionString' || candidate.tag === 'url')) {
      return candidate.url
    }
  }
  return undefined
}

/** Error of the wasm engine when a method without shadow-database factory needs one. */
const SHADOW_FACTORY_MISSING = /shadow DB must be provided through an external factory/i

/** Methods forwarded 1:1 to the wasm engine (JSON-RPC name -> wasm method). */
const WASM_METHODS = {
  applyMigrations: 'applyMigrations',
  createMigration: 'createMigration',
  dbExecute: 'dbExecute',
  debugPanic: 'debugPanic',
  devDiagnostic: 'devDiagnostic',
  diagnoseMigrationHistory: 'diagnoseMigrationHistory',
  diff: 'diff',
  evaluateDataLoss: 'evaluateDataLoss',
  getDatabaseVersion: 'version',
  introspect: 'introspect',
  introspectSql: 'introspectSql',
  markMigrationApplied: 'markMigrationApplied',
  markMigrationRolledBack: 'markMigrationRolledBack',
  reset: 'reset',
  schemaPush: 'schemaPush',
}

class JsonRpcServer {
  /** @param {EngineHost} host */
  constructor(host) {
    this.host = host
    this.nextId = 1
    /** @type {Map<number | string, (msg: any) => void>} our requests to the CLI (`print`) */
    this.pending = new Map()
    this.queue = Promise.resolve()
    this.inFlight = 0
    this.exiting = false
  }

  /** @param {object} message */
  send(message) {
    const line = JSON.stringify(message)
    debug(`-> ${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}`)
    process.stdout.write(`${line}\n`)
  }

  /**
   * Send a request to the CLI and wait for its response.
   * @param {string} method
   * @param {object} params
   */
  request(method, params) {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      this.send({ jsonrpc: '2.0', id, method, params })
    })
  }

  start() {
    log('INFO', { message: 'Starting schema engine RPC server', git_hash: ENGINES_HASH }, 'schema_engine_cli')
    const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
    rl.on('line', (line) => this.onLine(line))
    rl.on('close', () => {
      debug('stdin closed')
      // Let queued requests finish, then clean up (drop temporary shadow
      // databases, close pools) and exit like the native engine on EOF.
      this.queue = this.queue.then(() => this.shutdown(0))
    })
    const onSignal = (/** @type {string} */ signal) => {
      log('INFO', { message: `Received ${signal}` })
      // The CLI ends stdin and kills the engine right away on stop(); the
      // engine's own calls have disposed their shadow databases by then, this
      // is the safety net for anything still open.
      void this.shutdown(0, { freeEngines: this.inFlight === 0 })
    }
    process.on('SIGTERM', () => onSignal('SIGTERM'))
    process.on('SIGINT', () => onSignal('SIGINT'))
  }

  /** @param {string} line */
  onLine(line) {
    if (!line.trim()) return
    debug(`<- ${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}`)
    let message
    try {
      message = JSON.parse(line)
    } catch {
      this.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
      return
    }
    if (message && typeof message.method === 'string') {
      this.queue = this.queue.then(() => this.handleRequest(message))
    } else if (message && message.id !== undefined && this.pending.has(message.id)) {
      const resolve = this.pending.get(message.id)
      this.pending.delete(message.id)
      resolve?.(message)
    } else {
      debug('ignoring unexpected message', line)
    }
  }

  /** @param {{ id?: number | string | null, method: string, params?: any }} req */
  async handleRequest(req) {
    const isNotification = req.id === undefined || req.id === null
    this.inFlight++
    try {
      const result = await this.dispatch(req.method, req.params ?? {})
      if (!isNotification) this.send({ jsonrpc: '2.0', id: req.id, result: result === undefined ? {} : result })
    } catch (error) {
      if (error && /** @type {any} */ (error).jsonRpcCode) {
        if (!isNotification) {
          this.send({ jsonrpc: '2.0', id: req.id, error: { code: /** @type {any} */ (error).jsonRpcCode, message: /** @type {Error} */ (error).message } })
        }
        return
      }
      if (isWasmPanic(error)) {
        // A trapped wasm instance cannot be used again: report like the
        // native engine's panic hook (ERROR line with is_panic) and exit 101.
        const message = lastPanicMessage() || /** @type {Error} */ (error).message
        const backtrace = /** @type {Error} */ (error).stack ?? null
        writeStderrLine({
          timestamp: new Date().toISOString(),
          level: 'ERROR',
          fields: { is_panic: true, message, backtrace },
          target: 'schema_engine::logger',
        })
        if (!isNotification) {
          // The CLI shows `error.message` of panic responses (RustPanic).
          const rpcError = toJsonRpcError(new UserFacingError(message, { isPanic: true, backtrace }))
          this.send({ jsonrpc: '2.0', id: req.id, error: { ...rpcError, message } })
        }
        await this.shutdown(101, { freeEngines: false })
        return
      }
      const err = error instanceof UserFacingError ? error : toUserFacing(error)
      debug(`error in ${req.method}:`, err.code ?? '', err.message)
      if (!isNotification) this.send({ jsonrpc: '2.0', id: req.id, error: toJsonRpcError(err) })
    } finally {
      this.inFlight--
    }
  }

  /**
   * @param {string} method
   * @param {any} params
   */
  async dispatch(method, params) {
    switch (method) {
      case 'ensureConnectionValidity':
        await probeConnection(explicitUrlOf(params) ?? this.host.primaryUrl())
        return {}
      case 'createDatabase':
        return { databaseName: await createDatabase(explicitUrlOf(params) ?? this.host.primaryUrl()) }
      case 'dropDatabase':
        await dropDatabase(explicitUrlOf(params) ?? this.host.primaryUrl())
        return {}
    }
    const wasmMethod = /** @type {Record<string, string>} */ (WASM_METHODS)[method]
    if (!wasmMethod) {
      throw Object.assign(new Error(`Method not found: ${method}`), { jsonRpcCode: -32601 })
    }
    if (method === 'getDatabaseVersion' && Object.keys(params).length === 0) params = undefined
    const instance = await this.instanceFor(method, params)
    instance.shadows.setMigrationsSql(migrationsSqlOf(params))
    const engine = /** @type {any} */ (instance.engine)
    let result
    try {
      // Call as a method: detaching it from the instance breaks wasm-bindgen's `this`.
      result = await engine[wasmMethod](params)
    } catch (error) {
      if (isWasmPanic(error)) throw error
      if (!(SHADOW_FACTORY_MISSING.test(/** @type {Error} */ (error)?.message) && params.migrationsList)) {
        throw this.host.explain(error, instance.errorRegistry)
      }
      // FIX (wasm engine 7.10): evaluateDataLoss/createMigration get no shadow
      // database factory; they only work when the schema of the migrations
      // directory is already in the engine's per-instance cache (keyed by the
      // migrations list), which devDiagnostic fills only when no migration
      // was pending. After `migrate dev` applied pending migrations the cache
      // misses -> "PostgreSQL shadow DB must be provided through an external
      // factory". diagnoseMigrationHistory (which does get the factory)
      // computes and caches that schema on a shadow database; then retry.
      debug(`${method}: warming the migrations schema cache via diagnoseMigrationHistory`)
      try {
        await engine.diagnoseMigrationHistory({
          migrationsList: params.migrationsList,
          optInToShadowDatabase: true,
          filters: params.filters ?? { externalTables: [], externalEnums: [] },
        })
        result = await engine[wasmMethod](params)
      } catch (retryError) {
        if (isWasmPanic(retryError)) throw retryError
        throw this.host.explain(retryError, instance.errorRegistry)
      }
    }
    if (method === 'diff' && result && typeof result.stdout === 'string') {
      // The native engine prints the diff through a `print` request to the
      // CLI (content without its final newline; the CLI adds one) and returns
      // no stdout; the wasm engine returns it instead.
      const { stdout, ...rest } = result
      if (stdout.length > 0) await this.request('print', { content: stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout })
      return { ...rest, stdout: null }
    }
    return result
  }

  /**
   * The engine for a request: the one of the URL it names, else the main
   * datasource's. A `diff` between schema files / migrations / empty does not
   * need the main database, so it falls back to an offline engine when that
   * database is unreachable (the native engine does not connect for it).
   * @param {string} method
   * @param {any} params
   */
  async instanceFor(method, params) {
    const needsLiveDb = (/** @type {any} */ target) => ['schemaDatasource', 'url'].includes(target?.tag)
    if (method !== 'diff' || needsLiveDb(params.from) || needsLiveDb(params.to)) {
      return this.host.instance(explicitUrlOf(params))
    }
    try {
      return await this.host.instance()
    } catch (error) {
      debug('main database unavailable for diff, using the offline engine:', /** @type {Error} */ (error).message)
      return this.host.offlineInstance()
    }
  }

  /**
   * @param {number} code
   * @param {{ freeEngines?: boolean }} [opts]
   */
  async shutdown(code, opts) {
    if (this.exiting) return
    this.exiting = true
    // Never hang on cleanup (the native engine gives up after 4 s too).
    setTimeout(() => process.exit(code), 4000).unref()
    try {
      await this.host.dispose(opts)
    } catch (error) {
      debug('dispose failed', error)
    }
    debug(`exit ${code}`)
    process.exit(code)
  }
}

async function main() {
  guardStdio()
  debug('argv', JSON.stringify(process.argv.slice(2)), 'cwd', process.cwd())
  let args
  try {
    args = parseArgs(process.argv.slice(2))
  } catch (error) {
    writeStderrLine({ timestamp: new Date().toISOString(), level: 'ERROR', fields: { is_panic: false, message: String(/** @type {Error} */ (error).message) }, target: 'schema_engine::logger' })
    process.exit(1)
  }
  if (args.version) {
    process.stdout.write(`schema-engine-cli ${ENGINES_HASH}\n`)
    return
  }
  if (args.help) {
    process.stdout.write(
      `schema-engine-cli ${ENGINES_HASH} (JavaScript stand-in running @prisma/schema-engine-wasm)\n\n` +
        'USAGE:\n    schema-engine [--datamodels <FILE>]... [--datasource <JSON>] [cli <SUBCOMMAND>]\n\n' +
        'SUBCOMMANDS (cli):\n    can-connect-to-database\n    create-database\n    drop-database\n\n' +
        'Without a subcommand, serves JSON-RPC over stdin/stdout.\n',
    )
    return
  }
  if (args.cliCommand !== undefined) {
    process.exit(await runCliCommand(args))
  }
  let datamodels
  try {
    datamodels = readDatamodels(args.datamodels)
  } catch (error) {
    writeStderrLine({ timestamp: new Date().toISOString(), level: 'ERROR', fields: { is_panic: true, message: /** @type {Error} */ (error).message }, target: 'schema_engine::logger' })
    process.exit(101)
  }
  // Compile the wasm module while the CLI prepares its first request.
  loadSchemaEngineWasm().catch((error) => debug('wasm load failed', error))
  new JsonRpcServer(new EngineHost({ datasource: args.datasource, datamodels })).start()
}

await main()
