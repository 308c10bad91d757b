import { connect } from 'node:net'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createHttpServer } from './http-server.ts'
import { toApiRequest } from './node-http.ts'

let server: Server | undefined
afterEach(async () => {
  vi.unstubAllEnvs()
  await new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve()))
  server = undefined
})

async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  server = createHttpServer(listener)
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** Sends `head`, then the body's chunks `everyMs` apart; resolves with what came back (raw) once the server closes or ends the answer. */
function exchange(port: number, head: string, chunks: string[], everyMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    let next = 0
    const timer = setInterval(() => {
      if (next < chunks.length && !socket.destroyed) socket.write(chunks[next++]!)
    }, everyMs)
    socket.setEncoding('utf8')
    socket.on('data', (text: string) => (answer += text))
    socket.on('close', () => {
      clearInterval(timer)
      resolve(answer)
    })
    socket.on('error', () => undefined)
    socket.write(head)
  })
}

const post = (length: number) => `POST /v1/articles/bulk HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`

describe('the server’s own time bounds', () => {
  it('leaves Node’s requestTimeout off and its headersTimeout on (60 s)', async () => {
    await serve((_, res) => res.end())
    expect(server!.requestTimeout).toBe(0)
    expect(server!.headersTimeout).toBe(60_000)
  })

  it('does not cut a body read under the pace rule however long it takes past REQUEST_TIMEOUT_MS', async () => {
    vi.stubEnv('REQUEST_TIMEOUT_MS', '200')
    const port = await serve((req, res) => {
      const view = toApiRequest(req, new URL(`http://localhost${req.url}`), res)
      void view.bodyBytes!(1_000, () => ({ received: () => undefined, stop: () => undefined })).then((bytes) => res.end(`got ${(bytes as Buffer).length}`))
    })
    const answer = await exchange(port, post(10), ['12345', '67890'], 400)
    expect(answer).toMatch(/^HTTP\/1\.1 200/)
    expect(answer).toMatch(/got 10$/)
  })

  it('answers a body nobody paces that has not arrived whole within REQUEST_TIMEOUT_MS with a 400 problem saying why, and closes the connection', async () => {
    vi.stubEnv('REQUEST_TIMEOUT_MS', '200')
    // A handler that never reads the body (a route that answers later, or never).
    const port = await serve(() => undefined)
    const started = performance.now()
    const answer = await exchange(port, post(10), ['1'], 50)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(answer).toMatch(/^HTTP\/1\.1 400/)
    expect(answer).toMatch(/connection: close/i)
    expect(answer).toContain('application/problem+json')
    expect(answer).toContain('The request did not arrive whole within 0.2 s (REQUEST_TIMEOUT_MS)')
  })

  it('closes the connection of a request answered before its body ended once REQUEST_TIMEOUT_MS has passed', async () => {
    vi.stubEnv('REQUEST_TIMEOUT_MS', '300')
    const port = await serve((_, res) => {
      res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '5' })
      res.end('busy')
    })
    const started = performance.now()
    // Keeps sending a byte now and then, never the whole body.
    const answer = await exchange(port, post(1_000).replace('Connection: close\r\n', ''), Array.from({ length: 100 }, () => 'x'), 50)
    expect(answer).toMatch(/^HTTP\/1\.1 503/)
    expect(performance.now() - started).toBeLessThan(3_000)
  })
})
