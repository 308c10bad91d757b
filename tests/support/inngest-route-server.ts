import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { sendWebResponse } from '../../lib/server/node-http.ts'

type RouteHandler = (request: Request, context: unknown) => Promise<Response>

/** A Node request as the web Request Inngest's serve() handler reads, as Next builds it. */
function toWebRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v))
    else if (value !== undefined) headers.set(name, value)
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(url, { method: req.method, headers, body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined, duplex: 'half' } as RequestInit)
}

/**
 * Serves the app's real /api/inngest route (app/api/inngest/route.ts, i.e. `serve()` from
 * inngest/next) over HTTP on 127.0.0.1, the way Next would, so a test can drive it exactly as
 * Inngest's executor does. A sibling of api-server.ts, which serves /v1.
 */
export async function startInngestRouteServer(): Promise<{ url: string; close: () => Promise<void>; server: Server }> {
  const route = (await import('../../app/api/inngest/route.ts')) as unknown as Record<'GET' | 'POST' | 'PUT', RouteHandler>
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`)
      const handler = url.pathname === '/api/inngest' ? route[(req.method ?? 'GET') as 'GET' | 'POST' | 'PUT'] : undefined
      if (!handler) {
        res.writeHead(404).end()
        return
      }
      await sendWebResponse(req, res, await handler(toWebRequest(req, url), { params: Promise.resolve({}) }))
    } catch (error) {
      res.writeHead(599, { 'content-type': 'text/plain' }).end(String((error as Error).stack))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

