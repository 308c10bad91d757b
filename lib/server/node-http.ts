import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { knownPayload } from '../api/text-response.ts'
import { securityHeaders } from '../security/response-headers.mjs'

const gzipAsync = promisify(gzip)
// Below this, gzip's framing costs more than it saves (the threshold Next's compression uses).
const compressFromBytes = 1024

/**
 * Appends the peer this connection came from to X-Forwarded-For, as every proxy does, so the
 * header's last entry is one the client cannot forge (lib/security/client-address.ts). Called
 * once per request by whatever accepts the connection.
 */
export function recordPeerAddress(req: IncomingMessage): void {
  const peer = req.socket.remoteAddress ?? 'unknown'
  const forwarded = req.headers['x-forwarded-for']
  req.headers['x-forwarded-for'] = forwarded ? `${Array.isArray(forwarded) ? forwarded.join(', ') : forwarded}, ${peer}` : peer
}

/** A Node request as the web Request a route handler receives. */
export function toWebRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v))
    else if (value !== undefined) headers.set(name, value)
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    duplex: 'half',
  } as RequestInit)
}


/**
 * Writes a route handler's Response the way Next would have: the security headers every
 * response carries, and gzip for clients that accept it.
 */
export async function sendWebResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = { ...securityHeaders({ production: process.env.NODE_ENV === 'production', publicUrl: process.env.NEXTAUTH_URL }) }
  response.headers.forEach((value, name) => (headers[name] = value))
  const setCookies = response.headers.getSetCookie()
  if (setCookies.length > 0) headers['set-cookie'] = setCookies

  const payload = knownPayload(response)
  let body: Buffer = payload ? (payload.bytes ??= Buffer.from(payload.body)) : Buffer.from(await response.arrayBuffer())
  if (body.length >= compressFromBytes && acceptsGzip(req) && !response.headers.has('content-encoding')) {
    body = payload ? (payload.gzipped ??= await gzipAsync(body)) : await gzipAsync(body)
    headers['content-encoding'] = 'gzip'
    headers.vary = response.headers.has('vary') ? `${response.headers.get('vary')}, Accept-Encoding` : 'Accept-Encoding'
  }
  if (req.method !== 'HEAD' && response.status !== 204 && response.status !== 304) headers['content-length'] = String(body.length)
  res.writeHead(response.status, headers)
  res.end(req.method === 'HEAD' ? undefined : body)
}

function acceptsGzip(req: IncomingMessage): boolean {
  const accepted = req.headers['accept-encoding']
  if (!accepted) return false
  return accepted.split(',').some((part) => {
    const [coding, ...parameters] = part.trim().split(';')
    const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return (coding === 'gzip' || coding === '*') && (!quality || Number(quality.slice(2)) > 0)
  })
}
