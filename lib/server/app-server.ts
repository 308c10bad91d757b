import { createServer, type Server } from 'node:http'
import next from 'next'
import { appListener } from './app-listener.ts'
import { refuseConnect } from './unserved-methods.ts'
import { createV1Listener } from './v1-listener.ts'

/**
 * The production server: /v1 straight to its route files (v1-router.ts), the portal, the
 * Inngest endpoint and everything else through Next's request handler. One process, one port.
 */
export async function startAppServer(options: { port: number; hostname?: string; dir?: string }): Promise<Server> {
  const nextApp = next({ dev: false, dir: options.dir ?? process.cwd(), port: options.port, hostname: options.hostname })
  const handleWithNext = nextApp.getRequestHandler()
  const [serveV1] = await Promise.all([createV1Listener(), nextApp.prepare()])

  const server = createServer(appListener(serveV1, handleWithNext))
  refuseConnect(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.hostname, resolve)
  })
  return server
}

