import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'

/**
 * Prisma's generated client loads its query compiler (3.4 MB of WebAssembly, used to compile
 * once) by importing a module that is a single 4.6 MB base64 literal. An imported module is never
 * released: its source text and the string it exports stayed in the heap for the life of every
 * instance, 9.2 MB of the ~90 MB live heap (heap snapshot of the bench's service), and the heap
 * grows in proportion to what is live (issue 50: the cold list's cheaper collector settings did
 * not fit the memory budget). Read as a file instead, the text is garbage once compiled.
 */
const base64Module = '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js'

type CompilerWasm = { getQueryCompilerWasmModule: () => Promise<WebAssembly.Module> }
type WithEngineConfig = { _engineConfig?: { compilerWasm?: CompilerWasm } }

/**
 * Makes `client` (and every client of this generated module: the loader is shared) read the
 * query compiler from its file rather than import it. A Prisma whose client no longer has this
 * shape keeps its own loader; lib/db/query-compiler-wasm.test.ts fails then.
 */
export function loadQueryCompilerFromFile(client: object): void {
  const compilerWasm = (client as WithEngineConfig)._engineConfig?.compilerWasm
  if (!compilerWasm || typeof compilerWasm.getQueryCompilerWasmModule !== 'function') return
  const imported = compilerWasm.getQueryCompilerWasmModule
  compilerWasm.getQueryCompilerWasmModule = () => compiledFromFile().catch(() => imported())
}

async function compiledFromFile(): Promise<WebAssembly.Module> {
  // Resolved as the server's own imports of @prisma/client are: from the project (the working
  // directory, as lib/server/app-server.ts finds .next), whichever bundle this code is in.
  const file = createRequire(path.join(process.cwd(), 'package.json')).resolve(base64Module)
  const text = await readFile(file, 'utf8')
  const start = text.indexOf('"')
  const end = text.lastIndexOf('"')
  if (start < 0 || end <= start) throw new Error(`${file} is not a base64 module`)
  return new WebAssembly.Module(Buffer.from(text.slice(start + 1, end), 'base64'))
}
