import { readdirSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pathToFileURL } from 'node:url'

type RouteModule = Partial<Record<string, (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>>>
type Route = { segments: string[]; file: string; module?: RouteModule }

const appDir = path.resolve(import.meta.dirname, '../../app')

function findRoutes(dir: string, segments: string[] = []): Route[] {
  const routes: Route[] = []
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) routes.push(...findRoutes(full, [...segments, entry]))
    else if (entry === 'route.ts') routes.push({ segments, file: full })
  }
  return routes
}

// Static segments beat dynamic ones, which beat catch-alls, as in Next's router.
function rank(route: Route): number[] {
  return route.segments.map((segment) => (segment.startsWith('[...') ? 2 : segment.startsWith('[') ? 1 : 0))
}

function match(route: Route, parts: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {}
  for (let i = 0; i < route.segments.length; i++) {
    const segment = route.segments[i]!
    if (segment.startsWith('[...')) {
      if (i >= parts.length) return null
      params[segment.slice(4, -1)] = parts.slice(i)
      return params
    }
    if (i >= parts.length) return null
    if (segment.startsWith('[')) params[segment.slice(1, -1)] = safeDecode(parts[i]!)
    else if (segment !== parts[i]) return null
  }
  return route.segments.length === parts.length ? params : null
}

/**
 * Serves the app's real /v1 route handlers over HTTP on 127.0.0.1, without Next's build step,
 * so integration tests make real requests while each test file keeps its own database.
 */
export async function startApiServer(): Promise<{ url: string; close: () => Promise<void>; server: Server }> {
  const routes = findRoutes(path.join(appDir, 'v1'), ['v1']).sort((a, b) => {
    const ra = rank(a)
    const rb = rank(b)
    for (let i = 0; i < Math.min(ra.length, rb.length); i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!
    return rb.length - ra.length
  })

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`)
      const parts = url.pathname.split('/').filter(Boolean)
      for (const route of routes) {
        const params = match(route, parts)
        if (!params) continue
        route.module ??= (await import(pathToFileURL(route.file).href)) as RouteModule
        const handler = route.module[req.method ?? 'GET']
        const response = handler
          ? await handler(toRequest(req, url), { params: Promise.resolve(params) })
          : new Response(null, { status: 405 })
        res.writeHead(response.status, Object.fromEntries(response.headers))
        res.end(Buffer.from(await response.arrayBuffer()))
        return
      }
      res.writeHead(404).end()
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

// Next hands a route the raw segment when it is not valid percent-encoding.
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** A Node request as the web Request a route handler receives. */
export function toRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v))
    else if (value !== undefined) headers.set(name, value)
  }
  if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', req.socket.remoteAddress ?? '127.0.0.1')
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    duplex: 'half',
  } as RequestInit)
}
