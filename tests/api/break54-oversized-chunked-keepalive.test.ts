import { createServer, type IncomingMessage, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { readJsonBody } from '../../lib/api/read-json-body.ts'
import { toApiRequest } from '../../lib/server/node-http.ts'

// break54: what happens on the connection after a chunked body past its limit got its 413
// (discardRest, 6262762): keep-alive reuse, a body far past the bound, a client that stalls.
let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())))

function serve(): Promise<number> {
  server = createServer((req: IncomingMessage, res) => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    readJsonBody(toApiRequest(req, new URL(req.url ?? '/', 'http://127.0.0.1')), 1_000).then(
      () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'),
      (error: { code?: string }) => res.writeHead(error.code === 'payload_too_large' ? 413 : 400, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ code: error.code })),
    )
  })
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)))
}

function chunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
}

function open(port: number): Promise<{ socket: Socket; text: () => string; closed: () => boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    let received = ''
    let closed = false
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')))
    socket.on('close', () => (closed = true))
    socket.on('error', () => undefined)
    socket.on('connect', () => resolve({ socket, text: () => received, closed: () => closed }))
  })
}

const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10))
  return check()
}

describe('after a chunked body past its limit got its 413', () => {
  it('the same keep-alive connection serves the next request', async () => {
    const port = await serve()
    const c = await open(port)
    const body = JSON.stringify({ body: 'x'.repeat(5_000) })
    c.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n')
    for (let at = 0; at < body.length; at += 1_000) c.socket.write(chunk(body.slice(at, at + 1_000)))
    c.socket.write('0\r\n\r\n')
    expect(await until(() => c.text().includes('payload_too_large'), 3_000)).toBe(true)
    c.socket.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n')
    await until(() => c.text().includes('{"ok":true}') || c.closed(), 3_000)
    expect(c.text()).toMatch(/^HTTP\/1\.1 413[\s\S]*HTTP\/1\.1 200[\s\S]*\{"ok":true\}/)
  })

  it('a body far past the bound is cut off near the bound, and other connections are served meanwhile', async () => {
    const port = await serve()
    const c = await open(port)
    c.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n')
    const piece = chunk('x'.repeat(64 * 1024))
    let sent = 0
    // Up to 64 MB, pausing for the socket's drain: the server should cut the connection after ~8 MB.
    while (!c.closed() && sent < 64 * 1024 * 1024) {
      if (!c.socket.write(piece)) await Promise.race([new Promise((resolve) => c.socket.once('drain', resolve)), until(() => c.closed(), 2_000)])
      sent += 64 * 1024
      if (sent % (4 * 1024 * 1024) === 0) {
        const other = await fetch(`http://127.0.0.1:${port}/other`)
        expect(other.status).toBe(200)
      }
    }
    await until(() => c.closed(), 3_000)
    expect(c.closed()).toBe(true)
    expect(c.text()).toMatch(/^HTTP\/1\.1 413/)
    console.log("client had written", sent, "bytes when the server cut the connection")
    expect(sent).toBeLessThan(16 * 1024 * 1024)
  }, 30_000)

  it('a client that stalls mid-body after its 413 does not hold the connection open for long', async () => {
    const port = await serve()
    const c = await open(port)
    c.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n')
    c.socket.write(chunk(`{"body":"${'x'.repeat(5_000)}`))
    expect(await until(() => c.text().includes('payload_too_large'), 3_000)).toBe(true)
    const started = Date.now()
    await until(() => c.closed(), 15_000)
    console.log('stalled connection closed after', Date.now() - started, 'ms; closed:', c.closed())
    expect(c.closed()).toBe(true)
  }, 30_000)
})
