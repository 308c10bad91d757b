import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { problemResponse } from '../api/problem.ts'
import { createId } from '../ids.ts'

// The methods the app serves anywhere. Every other one the HTTP parser accepts (TRACE, CONNECT,
// PROPFIND, PURGE…) is answered 405 before routing, authentication or rate limiting: cheap, and
// never handed to code that builds a web Request (which throws on TRACE and CONNECT).
const servedMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
export const defaultAllow = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'

export function isServedMethod(method: string | undefined): boolean {
  return method !== undefined && servedMethods.has(method)
}

/** The 405 problem for a method the app does not serve; `allow` names what the path takes. */
export function unservedMethodResponse(method: string | undefined, allow: string = defaultAllow): Response {
  return problemResponse(
    { code: 'method_not_allowed', detail: `${method ?? 'This method'} is not supported here; use ${allow.replace(/, ([^,]*)$/, ' or $1')}.` },
    createId('req'),
    { Allow: allow },
  )
}

/**
 * CONNECT never reaches a request listener: Node hands it to 'connect', and without a listener
 * drops the connection. Answer it with the same 405 problem and close.
 */
export function refuseConnect(server: Server): void {
  server.on('connect', (req, socket: Duplex) => {
    void (async () => {
      const response = unservedMethodResponse(req.method)
      const body = await response.text()
      const head = [`HTTP/1.1 405 Method Not Allowed`, ...[...response.headers].map(([name, value]) => `${name}: ${value}`), `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close']
      socket.end(`${head.join('\r\n')}\r\n\r\n${body}`)
    })().catch(() => socket.destroy())
  })
}
