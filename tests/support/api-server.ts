import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHttpServer } from '../../lib/server/http-server.ts'
import { recordPeerAddress } from '../../lib/server/node-http.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
// As the servers do (instrumentation.ts, scripts/dev.ts): the outbox sends through Inngest.
import '../../inngest/outbox-queue.ts'

/**
 * Serves the app's real /v1 route handlers over HTTP on 127.0.0.1 through the production
 * server's own /v1 path (lib/server), without Next's build step, so integration tests make
 * real requests while each test file keeps its own database.
 */
export async function startApiServer(): Promise<{ url: string; close: () => Promise<void>; server: Server }> {
  const serveV1 = createV1Listener(await loadSourceV1Routes())
  // The production server's own (its time bounds: lib/server/http-server.ts).
  const server = createHttpServer((req, res) => {
    recordPeerAddress(req)
    void serveV1(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}
