import type { IncomingMessage, Server } from 'node:http'
import path from 'node:path'
import next from 'next'
import { appListener } from './app-listener.ts'
import { createHttpServer } from './http-server.ts'
import { refuseConnect } from './unserved-methods.ts'
import { createV1Listener } from './v1-listener.ts'
import { loadBuiltV1Routes, loadSourceV1Routes } from './v1-route-modules.ts'

/**
 * The server, in production and in `npm run dev` alike: /v1 straight to its route modules
 * (v1-router.ts), the portal, the Inngest endpoint and everything else through Next's request
 * handler. One process, one port.
 *
 * In production the /v1 modules are the ones `next build` compiled, loaded from Next's output
 * after Next has prepared, so they share Next's one copy of lib/. With `dev`, Next compiles the
 * portal on demand (Turbopack) and hot-reloads it over the upgrade handler's socket, and /v1
 * runs from the route files through tsx: a second copy of lib/ in development only, which is why
 * the few modules with process-wide state keep it under lib/process-singleton.ts.
 */
export async function startAppServer(options: { port: number; hostname?: string; dir?: string; dev?: boolean }): Promise<Server> {
  const dev = options.dev ?? false
  const dir = options.dir ?? process.cwd()
  const nextApp = next({ dev, dir, port: options.port, hostname: options.hostname })
  const handleWithNext = nextApp.getRequestHandler()
  await nextApp.prepare()
  const serveV1 = createV1Listener(dev ? await loadSourceV1Routes() : await loadBuiltV1Routes(path.join(dir, '.next')))

  const server = createHttpServer(appListener(serveV1, handleWithNext), { pacedByRoute: isPortalUpload })
  refuseConnect(server)
  if (dev) server.on('upgrade', nextApp.getUpgradeHandler())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.hostname, resolve)
  })
  return server
}

/**
 * The portal's upload (POST /api/media, through Next): its one reader, readMediaUploadBody, reads
 * it under the pace rule, which bounds it (http-server.ts). Next hands the route a web Request,
 * so the reader cannot say so itself as /v1's do (ApiRequest's bodyPaced).
 */
function isPortalUpload(req: IncomingMessage): boolean {
  const path = req.url ?? ''
  return req.method === 'POST' && (path === '/api/media' || path.startsWith('/api/media?'))
}
