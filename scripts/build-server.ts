/**
 * `npm run build`'s last step, after `next build`: compiles what `npm start` runs besides Next's
 * build into dist/ with esbuild, so production needs no TypeScript loader:
 * - dist/start.mjs, the server (scripts/start.ts): the HTTP plumbing, the embedded database and
 *   the boot steps. It must hold no module with application state: the app's one copy of lib/
 *   is Next's build, whose /v1 route modules it calls. `checkServerInputs` enforces that.
 * - dist/prepare-database.mjs, the seed, run in a child process (the data migrations run in the
 *   server, in the background: lib/db/data-migrations/background-data-migrations.ts).
 * Packages stay imports from node_modules, as Next's build leaves them.
 */
import { build, type Metafile } from 'esbuild'
import path from 'node:path'

const projectRoot = path.resolve(import.meta.dirname, '..')

/**
 * What the server bundle may contain: its own start-up code, the HTTP plumbing, and pure
 * helpers (problem bodies, ids, headers). Anything else — the database client, caches, the
 * token cache, metrics, the request log, the event queue — would be a second copy of state
 * that Next's copy holds.
 */
export const serverBundleMayContain: RegExp[] = [
  /^scripts\/(start|boot|run-prisma|schema-migrations|record-native-date|heap-settings)\.ts$/,
  /^lib\/server\/(app-server|app-listener|http-server|v1-listener|v1-router|v1-route-modules|node-http|unserved-methods|host-header|request-path|lifecycle)\.ts$/,
  /^lib\/api\/(problem|text-response)\.ts$/,
  /^lib\/(problem-codes|ids|errors|native-date)\.ts$/,
  /^lib\/security\/response-headers\.mjs$/,
  /^lib\/config\/local-secrets\.ts$/,
  /^lib\/db\/(embedded-server|embedded-config|embedded-identity)\.ts$/,
]

export function forbiddenServerInputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs).filter((input) => !input.startsWith('node_modules/') && !serverBundleMayContain.some((allowed) => allowed.test(input)))
}

export async function buildServer(options: { write?: boolean } = {}): Promise<{ server: Metafile }> {
  const common = {
    absWorkingDir: projectRoot,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    write: options.write ?? true,
    logLevel: 'warning',
  } as const
  const [server] = await Promise.all([
    build({ ...common, entryPoints: ['scripts/start.ts'], outfile: 'dist/start.mjs' }),
    build({ ...common, entryPoints: ['scripts/prepare-database.ts'], outfile: 'dist/prepare-database.mjs' }),
  ])
  const forbidden = forbiddenServerInputs(server.metafile)
  if (forbidden.length > 0) {
    throw new Error(`dist/start.mjs would load application modules a second time beside Next's build: ${forbidden.join(', ')}. Reach them through Next's build (a route module, instrumentation.ts) instead.`)
  }
  return { server: server.metafile }
}

if (process.argv[1] === import.meta.filename) {
  await buildServer()
  console.log('Built dist/start.mjs and dist/prepare-database.mjs.')
}
