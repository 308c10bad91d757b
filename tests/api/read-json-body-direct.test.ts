import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { readJsonBody } from '../../lib/api/read-json-body.ts'
import { toApiRequest } from '../../lib/server/node-http.ts'

// The production server's requests are read straight off Node's stream (ApiRequest.bodyBytes),
// not through a web stream: the same outcomes as the stream's, for whole, oversized and cut bodies.
let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

/** Starts a server that reads each request's body as withApi does (max 1,000 bytes) and hands over the outcome. */
function serve(path: 'direct' | 'stream'): Promise<{ port: number; outcome: Promise<unknown> }> {
  let settle!: (value: unknown) => void
  const outcome = new Promise((resolve) => (settle = resolve))
  server = createServer((req: IncomingMessage, res) => {
    const view = toApiRequest(req, new URL(req.url ?? '/', 'http://127.0.0.1'))
    expect(view.bodyBytes).toBeDefined()
    // The web stream's path, for comparison: the same view without bodyBytes.
    const asStream = Object.assign(Object.create(view) as typeof view, { bodyBytes: undefined })
    readJsonBody(path === 'direct' ? view : asStream, 1_000).then(
      (body) => {
        settle(body)
        res.end('ok')
      },
      (error: { code?: string }) => {
        settle(new Error(error.code))
        res.destroy()
      },
    )
  })
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve({ port: (server!.address() as AddressInfo).port, outcome })))
}

function send(port: number, chunks: string[], options: { end: boolean }) {
  const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } })
  req.on('error', () => undefined)
  for (const chunk of chunks) req.write(chunk)
  if (options.end) req.end()
  return req
}

describe.each(['direct', 'stream'] as const)('a JSON body read %s', (path) => {
  it('parses a body sent in several chunks', async () => {
    const { port, outcome } = await serve(path)
    send(port, ['{"headline":', ' "Read ', 'whole"}'], { end: true })
    expect(await outcome).toEqual({ headline: 'Read whole' })
  })

  it('refuses a body past the limit with no Content-Length (413), as the stream did', async () => {
    const { port, outcome } = await serve(path)
    send(port, ['{"body":"', 'x'.repeat(600), 'x'.repeat(600), '"}'], { end: true })
    expect(await outcome).toEqual(new Error('payload_too_large'))
  })

  it('reports a body cut off by a client that went away', async () => {
    const { port, outcome } = await serve(path)
    const req = send(port, ['{"headline":'], { end: false })
    setTimeout(() => req.destroy(), 50)
    expect(await outcome).toEqual(new Error('request_aborted'))
  })
})
