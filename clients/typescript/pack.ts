import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { staleVersionMessage } from '../../lib/api/openapi/api-version.ts'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'

/**
 * `npm run client:pack [-- --check] [destination]`: the client as a package. Its version is the
 * OpenAPI document's (`info.version`), written into clients/typescript/package.json (`--check`
 * only says whether it is); then src/ is compiled to JavaScript with type declarations in dist/
 * and `npm pack` writes the tarball to the destination (default: clients/typescript). Prints the
 * tarball's path.
 */
const here = import.meta.dirname
const root = path.resolve(here, '../..')
const manifestPath = path.join(here, 'package.json')
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string }
const version = String(buildOpenApiDocument().info.version)
const args = process.argv.slice(2)

// A version recorded for other operations than the document has is not the client's version.
const stale = staleVersionMessage(buildOpenApiDocument().paths!)
if (stale) {
  console.error(stale)
  process.exit(1)
}

if (args.includes('--check')) {
  if (manifest.version !== version) {
    console.error(`clients/typescript/package.json says ${manifest.version}; the OpenAPI document is ${version}. Run npm run client:pack.`)
    process.exit(1)
  }
  console.log(`clients/typescript/package.json is at the OpenAPI document's version, ${version}.`)
  process.exit(0)
}

if (manifest.version !== version) writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`)
rmSync(path.join(here, 'dist'), { recursive: true, force: true })
execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(here, 'tsconfig.build.json')], { stdio: 'inherit' })
const destination = path.resolve(args.find((arg) => !arg.startsWith('--')) ?? here)
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: here, encoding: 'utf8' })) as { filename: string }[]
console.log(path.join(destination, packed[0]!.filename))
