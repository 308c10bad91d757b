import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * `npm start` exactly as package.json says it (the heap limit and the environment it sets
 * included), for tools that start the production server and must measure or signal its own
 * process: run through `sh -c exec`, the shell becomes the server, so the child's pid is the
 * server's. `checkout` is the one whose package.json is read (bench/interleaved-ab.ts starts two
 * builds, each with its own flags). `nodeFlags` go to node before the script (a profiler's, say).
 */
export function startCommand(checkout = path.resolve(import.meta.dirname, '..'), options: { nodeFlags?: string } = {}): [string, string[]] {
  const manifest = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts: { start: string } }
  // Leading `NAME=value` words (MALLOC_ARENA_MAX) go before `exec`, which passes them on to node.
  // The script execs node itself (so that npm's SIGTERM reaches node, not a shell that dies and
  // leaves node serving); the `exec` is put back below either way.
  const [, assignments, command] = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)(?:exec\s+)?(.*)$/.exec(manifest.scripts.start)!
  if (!command!.startsWith('node ')) throw new Error(`npm start must run node: ${manifest.scripts.start}`)
  const flagged = options.nodeFlags ? `node ${options.nodeFlags} ${command!.slice('node '.length)}` : command!
  return ['sh', ['-c', `${assignments}exec ${flagged}`]]
}
