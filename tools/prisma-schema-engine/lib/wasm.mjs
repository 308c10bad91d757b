/**
 * Loads `@prisma/schema-engine-wasm` (the schema engine compiled to
 * WebAssembly, same version/commit as the CLI's engines hash).
 *
 * The package's main entry does `import * as wasm from "./schema_engine_bg.wasm"`,
 * which plain Node cannot import, so we instantiate the module by hand exactly
 * like Prisma's own `wasmSchemaEngineLoader` does.
 */
import fs from 'node:fs'

/**
 * wasm-bindgen's panic hook reports the panic message through this global
 * (see `__wbg_set_message_*` in schema_engine_bg.js); it must exist before a
 * panic happens or the panic turns into a TypeError.
 */
const panicRegistry = {
  message: '',
  /** @param {string} message */
  set_message(message) {
    this.message = `RuntimeError: ${message}`
  },
}
/** @type {any} */
const globals = globalThis
globals.PRISMA_WASM_PANIC_REGISTRY ??= panicRegistry

/** @returns {string} the last panic message recorded by the wasm module, if any */
export function lastPanicMessage() {
  return globals.PRISMA_WASM_PANIC_REGISTRY?.message ?? ''
}

/** @type {Promise<typeof import('@prisma/schema-engine-wasm')> | undefined} */
let runtimePromise

/**
 * @returns {Promise<typeof import('@prisma/schema-engine-wasm')>} the bindings
 *   (`SchemaEngine` class and `version()`), initialised once per process.
 */
export function loadSchemaEngineWasm() {
  runtimePromise ??= (async () => {
    const bgUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg')
    const runtime = await import(bgUrl)
    const bytes = fs.readFileSync(new URL('./schema_engine_bg.wasm', bgUrl))
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
      './schema_engine_bg.js': runtime,
    })
    runtime.__wbg_set_wasm(instance.exports)
    const start = /** @type {() => void} */ (instance.exports.__wbindgen_start)
    start()
    return runtime
  })()
  return runtimePromise
}

/**
 * A wasm trap (e.g. Rust panic -> `unreachable`) leaves the instance unusable.
 * @param {unknown} error
 */
export function isWasmPanic(error) {
  return error instanceof WebAssembly.RuntimeError || (error instanceof Error && error.name === 'RuntimeError')
}
