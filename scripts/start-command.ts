import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * `npm start` exactly as package.json says it (the heap limit included), for tools that start
 * the production server and must measure or signal its own process: run through `sh -c exec`,
 * the shell becomes the server, so the child's pid is the server's. `checkout` is the one whose
 * package.json is read (bench/interleaved-ab.ts starts two builds, each with its own flags).
 */
export function startCommand(checkout = path.resolve(import.meta.dirname, '..')): [string, string[]] {
  const manifest = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts: { start: string } }
  return ['sh', ['-c', `exec ${manifest.scripts.start}`]]
}
