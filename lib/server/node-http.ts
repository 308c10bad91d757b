import { pipeline } from 'node:stream/promises'
import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { ApiRequest } from '../api/api-request.ts'
import type { BodyPace } from '../api/body-pace.ts'
import { knownPayload, plainResponseHeaders, responseHeader, responseHeaderEntries, payloadBytes } from '../api/text-response.ts'
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

// Requests whose body a reader watches under the pace rule (lib/api/body-pace.ts): that rule
// bounds them, not REQUEST_TIMEOUT_MS (http-server.ts).
const pacedBodies = new WeakSet<IncomingMessage>()

/** Whether the request's body is being read under the pace rule (bodyBytes with `pace`, or a reader that said so: ApiRequest's bodyPaced). */
export function isBodyPaced(req: IncomingMessage): boolean {
  return pacedBodies.has(req)
}

/**
 * A Node request as what a /v1 handler reads (ApiRequest): headers are read from Node's own
 * object when asked for, and the body becomes a web stream only when a handler reads it.
 */
export function toApiRequest(req: IncomingMessage, url: URL, res?: ServerResponse): ApiRequest {
  return new NodeRequestView(req, url, res)
}

class NodeRequestView implements ApiRequest {
  readonly headers: ApiRequest['headers']
  private stream: ReadableStream<Uint8Array> | null | undefined

  readonly url: string

  constructor(
    private readonly req: IncomingMessage,
    // The listener parsed it to route the request: withApi reads it rather than parsing the text again.
    readonly parsedUrl: URL,
    private readonly res?: ServerResponse,
  ) {
    this.url = parsedUrl.href
    const headers = req.headers
    // Node joins repeated headers with ', ' (set-cookie aside, which requests do not carry), as Headers#get does.
    this.headers = { get: (name) => headerValue(headers[name.toLowerCase()]) }
  }

  get method(): string {
    return this.req.method ?? 'GET'
  }

  private abandoned: AbortSignal | undefined

  /** Aborts when the client leaves before the answer is delivered, as Next's request.signal does. Made when first asked for. */
  get signal(): AbortSignal | undefined {
    const res = this.res
    if (!res || this.abandoned) return this.abandoned
    const controller = new AbortController()
    if (res.destroyed && !res.writableFinished) controller.abort()
    else res.once('close', () => res.writableFinished || controller.abort())
    this.abandoned = controller.signal
    return this.abandoned
  }

  bodyPaced(): void {
    pacedBodies.add(this.req)
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === undefined) {
      // A body asked for after the client went away (a request that waited for a large-body
      // slot) would never end as a web stream: it fails at once instead.
      const gone = this.req.destroyed && !this.req.readableEnded
      this.stream = this.method === 'GET' || this.method === 'HEAD' ? null : gone ? new ReadableStream({ start: (controller) => controller.error(new Error('aborted')) }) : (Readable.toWeb(this.req) as ReadableStream<Uint8Array>)
    }
    return this.stream
  }

  // A write's JSON body, read from Node's stream as it is: Readable.toWeb and a reader's promise
  // per chunk cost every write ~5 % of the service's CPU in a profile (issue 50, writes).
  // Same outcomes as reading `body`: a body over maxBytes stops being kept and gets its 413
  // (discardRest); a client gone mid-body rejects, and so, with the error `pace` gives up with,
  // does one that sends too slowly (body-pace.ts, passed in: the server bundle holds no app
  // module), which would otherwise hold its large-body slot forever (Node's requestTimeout is off
  // on our server; http-server.ts).
  bodyBytes(maxBytes: number, pace?: (giveUp: (error: Error) => void) => BodyPace): Promise<Buffer | 'too-large' | null> {
    if (this.method === 'GET' || this.method === 'HEAD') return Promise.resolve(null)
    const req = this.req
    if (req.destroyed && !req.readableEnded) return Promise.reject(new Error('aborted'))
    if (req.readableEnded) return Promise.resolve(Buffer.alloc(0))
    if (pace) pacedBodies.add(req)
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      let received = 0
      const watch = pace?.((error) => {
        settle()
        reject(error)
      })
      const settle = () => {
        watch?.stop()
        req.off('data', onData)
        req.off('end', onEnd)
        req.off('error', onGone)
        req.off('close', onGone)
      }
      const onData = (chunk: Buffer) => {
        watch?.received(chunk.length)
        received += chunk.length
        if (received <= maxBytes) return void chunks.push(chunk)
        settle()
        discardRest(req, maxBytes)
        resolve('too-large')
      }
      const onEnd = () => {
        settle()
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received))
      }
      const onGone = () => {
        settle()
        reject(new Error('aborted'))
      }
      req.on('data', onData)
      req.once('end', onEnd)
      req.once('error', onGone)
      req.once('close', onGone)
    })
  }
}

/**
 * A body past its limit is read on and dropped, so that the client, still sending, gets its 413
 * rather than a reset connection: destroying the request at once reset the socket before the
 * answer was written (break53). Bounded: past eight times the limit (at least 8 MB) more, the
 * request is destroyed after all, so a client cannot make the server read an endless body.
 */
function discardRest(req: IncomingMessage, maxBytes: number): void {
  const bound = Math.max(8 * maxBytes, 8 * 1024 * 1024)
  let dropped = 0
  const onData = (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > bound) {
      req.off('data', onData)
      req.destroy()
    }
  }
  req.on('data', onData)
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null
  return Array.isArray(value) ? value.join(', ') : value
}


// What sendWebResponse returns for an answer it wrote at once: one settled promise for all of
// them, where an async function made a promise, and its caller's await a turn, per response.
const written: Promise<void> = Promise.resolve()

/**
 * Writes a route handler's Response the way Next would have: the security headers every
 * response carries, and gzip for clients that accept it. An answer whose bytes are known (every
 * JSON answer; a cached one's gzip kept beside it) is written before this returns; a failure
 * rejects, never throws, for callers that do not wait for it.
 */
export function sendWebResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  try {
    const payload = knownPayload(response)
    if (!payload) return sendUnknownPayload(req, res, response)
    const body = payloadBytes(payload)
    if (!shouldGzip(req, response, body)) {
      writeAnswer(req, res, response, body, false)
      return written
    }
    if (payload.gzipped) {
      writeAnswer(req, res, response, payload.gzipped, true)
      return written
    }
    return gzipAsync(body).then((gzipped) => writeAnswer(req, res, response, (payload.gzipped ??= gzipped), true))
  } catch (error) {
    return Promise.reject(error)
  }
}

async function sendUnknownPayload(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  // Images (a media original, up to MEDIA_MAX_BYTES) are streamed, never whole in the heap;
  // they are compressed already, so gzip would only cost CPU.
  if (response.body && responseHeader(response, 'content-type')?.startsWith('image/')) return streamWebResponse(req, res, response)
  const body = Buffer.from(await response.arrayBuffer())
  if (!shouldGzip(req, response, body)) return writeAnswer(req, res, response, body, false)
  writeAnswer(req, res, response, await gzipAsync(body), true)
}

function shouldGzip(req: IncomingMessage, response: Response, body: Buffer): boolean {
  return body.length >= compressFromBytes && responseHeader(response, 'content-encoding') === null && acceptsGzip(req)
}

function writeAnswer(req: IncomingMessage, res: ServerResponse, response: Response, body: Buffer, gzipped: boolean): void {
  const sized = req.method !== 'HEAD' && response.status !== 204 && response.status !== 304

  // A flat name, value list for writeHead: Node writes it as it is, where an object built per
  // response (the security headers copied, then each of the answer's set on it) cost a twelfth
  // of a cached GET's CPU in property transitions (perf).
  const headers: OutgoingHttpHeader[] = []
  let vary: string | undefined
  const plain = plainResponseHeaders(response)
  if (plain) {
    // A text answer's own record, read in place (no entry pair made per header).
    for (const name in plain) {
      const value = plain[name]!
      if (name === 'vary') vary = value
      else if (!(name === 'content-length' && sized)) headers.push(name, value)
    }
    for (const [name, value] of currentSecurityHeaders()) if (plain[name] === undefined) headers.push(name, value)
  } else {
    for (const [name, value] of responseHeaderEntries(response)) {
      if (name === 'vary') vary = String(value)
      else if (!(name === 'content-length' && sized)) headers.push(name, value)
    }
    for (const [name, value] of currentSecurityHeaders()) if (responseHeader(response, name) === null) headers.push(name, value)
  }
  if (gzipped) {
    headers.push('content-encoding', 'gzip')
    vary = vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding'
  }
  if (vary !== undefined) headers.push('vary', vary)
  if (sized) headers.push('content-length', String(body.length))
  res.writeHead(response.status, headers)
  res.end(req.method === 'HEAD' ? undefined : body)
}

async function streamWebResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: OutgoingHttpHeader[] = []
  for (const [name, value] of responseHeaderEntries(response)) headers.push(name, value)
  for (const [name, value] of currentSecurityHeaders()) if (responseHeader(response, name) === null) headers.push(name, value)
  res.writeHead(response.status, headers)
  if (req.method === 'HEAD') {
    await response.body?.cancel()
    res.end()
    return
  }
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res)
}

// Made once per setting rather than once per response; names lower-cased, as answers' are. A
// production server's environment does not change under it, so there they are made once: two
// process.env reads a response (a native lookup each) were 1 % of a cached GET (issue 50's
// profile). Tests change the settings under a running process: elsewhere they are read each time.
const productionProcess = process.env.NODE_ENV === 'production'
let memoisedSecurityHeaders: { setting: string; entries: [string, string][] } | undefined
function currentSecurityHeaders(): [string, string][] {
  if (productionProcess && memoisedSecurityHeaders) return memoisedSecurityHeaders.entries
  const production = process.env.NODE_ENV === 'production'
  const publicUrl = process.env.NEXTAUTH_URL
  const setting = `${production}|${publicUrl ?? ''}`
  if (memoisedSecurityHeaders?.setting !== setting) {
    const entries = Object.entries(securityHeaders({ production, publicUrl })).map(([name, value]): [string, string] => [name.toLowerCase(), value])
    memoisedSecurityHeaders = { setting, entries }
  }
  return memoisedSecurityHeaders.entries
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
