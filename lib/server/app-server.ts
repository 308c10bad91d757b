import { createServer, type Server } from 'node:http'
import next from 'next'
import { appListener } from './app-listener.ts'
import { refuseConnect } from './unserved-methods.ts'
import { createV1Listener } from './v1-listener.ts'

/**
 * The server, in production and in `npm run dev` alike: /v1 straight to its route files
 * (v1-router.ts), the portal, the Inngest endpoint and everything else through Next's request
 * handler. One process, one port. With `dev`, Next compiles the portal on demand (Turbopack,
 * as Next picks for custom servers) and hot-reloads it over the upgrade handler's socket.
 */
export async function startAppServer(options: { port: number; hostname?: string; dir?: string; dev?: boolean }): Promise<Server> {
  const nextApp = next({ dev: options.dev ?? false, dir: options.dir ?? process.cwd(), port: options.port, hostname: options.hostname })
  const handleWithNext = nextApp.getRequestHandler()
  const [serveV1] = await Promise.all([createV1Listener(), nextApp.prepare()])

  const server = createServer(appListener(serveV1, handleWithNext))
  refuseConnect(server)
  if (options.dev) server.on('upgrade', nextApp.getUpgradeHandler())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.hostname, resolve)
  })
  return server
}

