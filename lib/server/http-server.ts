import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { problemResponse } from '../api/problem.ts'
import { createId } from '../ids.ts'
import { isBodyPaced, sendWebResponse } from './node-http.ts'

/**
 * The node:http server every door runs on (app-server.ts in production and `npm run dev`, the
 * integration tests' tests/support/api-server.ts), with our time bounds in place of Node's:
 *
 * - Headers: Node's headersTimeout, 60 s, set explicitly (it defaults to the smaller of 60 s and
 *   requestTimeout, so turning requestTimeout off alone would have turned it off too): a client
 *   that opens a connection and sends nothing, or headers a byte at a time, is let go.
 * - Bodies read under the pace rule (lib/api/body-pace.ts: uploads, bulk imports, every JSON
 *   body a /v1 handler reads): that rule is their bound, and the only one. Node's requestTimeout
 *   (300 s from the request's first byte) is off: it cut a body that kept the pace (a 50 MB upload
 *   under 170 KB/s, a bulk import at 2 KB/s) at five minutes with a bare 408 and nothing stored,
 *   breaking the rule's promise that any rate above MEDIA_UPLOAD_MIN_BYTES_PER_SECOND is accepted
 *   (break66). How long such a body may hold a large-body slot is the operator's to bound, by the
 *   floor (MEDIA_MAX_BYTES ÷ MEDIA_UPLOAD_MIN_BYTES_PER_SECOND) and LARGE_BODY_PER_CLIENT.
 * - Any other request (a body nobody reads under the rule: the portal's own forms through Next,
 *   the rest of a body after its answer was sent): REQUEST_TIMEOUT_MS (default 300 s, Node's
 *   old bound) from its arrival to its last byte. Past it, a request not yet answered is answered
 *   400 request_aborted saying why, and its connection closed; one already answered has its
 *   connection closed (a client still trickling a body nobody reads holds nothing longer).
 */
export function createHttpServer(listener: (req: IncomingMessage, res: ServerResponse) => void, options: { pacedByRoute?: (req: IncomingMessage) => boolean } = {}): Server {
  const server = createServer({ requestTimeout: 0, headersTimeout: headersTimeoutMs }, (req, res) => {
    watchArrival(req, res, options.pacedByRoute?.(req) ?? false)
    listener(req, res)
  })
  return server
}

const headersTimeoutMs = 60_000

// setTimeout fires after 1 ms for any delay past this, so a REQUEST_TIMEOUT_MS of weeks (meant as
// "no limit") cut every body still arriving a millisecond after its headers (break70).
const longestTimerMs = 2 ** 31 - 1

/** REQUEST_TIMEOUT_MS (default 300 s); empty or not a positive number means the default; past ~24.8 days (setTimeout's longest), ~24.8 days. */
export function requestTimeoutMs(): number {
  // Floored first: a fraction below 1 is not a positive number of milliseconds (break70).
  const value = Math.floor(Number(process.env.REQUEST_TIMEOUT_MS))
  return Number.isFinite(value) && value > 0 ? Math.min(value, longestTimerMs) : 300_000
}

function watchArrival(req: IncomingMessage, res: ServerResponse, pacedByRoute: boolean): void {
  // No body (most requests: GETs): the headers were the whole request, and headersTimeout bounded them.
  const length = req.headers['content-length']
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return
  const limitMs = requestTimeoutMs()
  // One timer per request, looked at when it fires: cheaper than listening to every request's end.
  const look = () => {
    if (req.complete || req.socket.destroyed) return
    // Answered, with the rest of its body still coming: nobody reads it, the connection goes.
    if (res.writableFinished) return void req.socket.destroy()
    // Being read under the pace rule (or by a route that only reads so): looked at again later,
    // for the rest of the body once it is answered.
    if (isBodyPaced(req) || pacedByRoute) return void setTimeout(look, limitMs).unref()
    const seconds = (limitMs / 1000).toLocaleString('en')
    if (res.headersSent) return void req.socket.destroy()
    res.shouldKeepAlive = false
    const answer = problemResponse({ code: 'request_aborted', detail: `The request did not arrive whole within ${seconds} s (REQUEST_TIMEOUT_MS); nothing was done with it. Send it again.` }, createId('req'), { Connection: 'close' })
    void sendWebResponse(req, res, answer).catch(() => req.socket.destroy())
  }
  const timer = setTimeout(look, limitMs).unref()
  res.once('close', () => {
    if (req.complete) clearTimeout(timer)
  })
}
