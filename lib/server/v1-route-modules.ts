import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ApiRequest } from '../api/api-request.ts'

type RouteParams = Record<string, string | string[]>
/** `resolvedParams`: the params again, not wrapped in a promise, for a handler that can read them at once (the router passes both; Next, params alone). */
export type RouteHandler = (request: ApiRequest, context: { params: Promise<RouteParams>; resolvedParams?: RouteParams }) => Promise<Response>
export type RouteModule = Partial<Record<string, RouteHandler>>
/**
 * The article page's awareness poll and lease asks (app/api/articles/…): the portal's most
 * frequent requests (every open editor, every 3 s), served straight from their route modules as
 * /v1 is, because Next's per-request machinery cost several times their own work
 * (bench/results/editors-2026-11-26-04-42.md).
 */
export const directPortalRoutes = '/api/articles/'

/**
 * Liveness, readiness and metrics (app/healthz, app/readyz, app/metrics): served straight from
 * their route modules as well. A load balancer's check and a scraper must not depend on Next's
 * rendering machinery, and a request through Next turns on its AsyncLocalStorage, whose promise
 * hooks then cost every later request of the process (a cached GET: 63 → 94 µs of CPU in an
 * interleaved run, issue 50): an instance that serves only the API and its checks never pays it.
 */
export const operationalPaths: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics'])
const operationalPages: ReadonlySet<string> = new Set([...operationalPaths].map((path) => `${path}/route`))

/** A /v1 route: its path segments as folder names (`[article_id]`, `[...path]`) and its exports. */
export type V1Route = { segments: string[]; module: RouteModule }

/**
 * The /v1 route modules as `next build` compiled them, for the production server. They are the
 * same module instances Next's own routes, the portal's tRPC handler and instrumentation.ts run
 * in, so lib/ is loaded once per process: one pool, one token cache, one Redis client.
 * Next lists them in its app-paths manifest; each compiled module wraps the route file's
 * exports (`routeModule.userland`), which Next loads lazily until `ensureUserland()`.
 */
export async function loadBuiltV1Routes(distDir: string): Promise<V1Route[]> {
  const manifestFile = path.join(distDir, 'server', 'app-paths-manifest.json')
  let manifest: Record<string, string>
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>
  } catch {
    throw new Error(`No production build at ${distDir} (${manifestFile} is missing): run \`npm run build\` first.`)
  }
  const requireBuilt = createRequire(manifestFile)
  const entries = Object.entries(manifest).filter(([page]) => (page.startsWith('/v1/') || page.startsWith('/content/v1/') || page.startsWith(directPortalRoutes) || operationalPages.has(page)) && page.endsWith('/route'))
  return Promise.all(
    entries.map(async ([page, file]) => {
      const compiled = requireBuilt(path.join(distDir, 'server', file)) as { routeModule: { ensureUserland?: () => Promise<void>; userland: RouteModule } }
      await compiled.routeModule.ensureUserland?.()
      return { segments: page.split('/').filter(Boolean).slice(0, -1), module: compiled.routeModule.userland }
    }),
  )
}

/**
 * The route files themselves (app/v1/**\/route.ts), through whatever loads this process's
 * TypeScript: tsx in `npm run dev`, vitest in the tests. Found on disk, so a new route file
 * needs no registration.
 */
export async function loadSourceV1Routes(appDir = path.resolve(import.meta.dirname, '../../app')): Promise<V1Route[]> {
  // The public content API (/content/v1) is served the same way.
  // And the article page's poll and lease asks (app-listener.ts, directPortalRoutes).
  const files = [
    ...findRouteFiles(path.join(appDir, 'v1'), ['v1']),
    ...findRouteFiles(path.join(appDir, 'content', 'v1'), ['content', 'v1']),
    ...findRouteFiles(path.join(appDir, 'api', 'articles'), ['api', 'articles']),
    ...[...operationalPaths].map((route) => ({ segments: [route.slice(1)], file: path.join(appDir, route.slice(1), 'route.ts') })),
  ]
  return Promise.all(files.map(async ({ segments, file }) => ({ segments, module: (await import(pathToFileURL(file).href)) as RouteModule })))
}

function findRouteFiles(dir: string, segments: string[]): { segments: string[]; file: string }[] {
  const found: { segments: string[]; file: string }[] = []
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) found.push(...findRouteFiles(full, [...segments, entry]))
    else if (entry === 'route.ts') found.push({ segments, file: full })
  }
  return found
}
