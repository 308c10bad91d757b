import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { parseRetryAfter, sendWebhookRequest } from './send-webhook-request.ts'
import { setHostResolver } from './url-safety.ts'

type Seen = { method?: string; headers: IncomingMessage['headers']; body: string }

const servers: Server[] = []
afterEach(async () => {
  setHostResolver(undefined)
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) })))
})

async function receiver(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      handle(req, res)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, seen }
}

const headers = { 'Content-Type': 'application/json', 'X-Service-Event': 'article.published' }

describe('sendWebhookRequest (real sockets on 127.0.0.1)', () => {
  it('POSTs the exact body with the given headers and reports a 2xx as success', async () => {
    // The receiver takes 150 ms to answer; the reported duration (shown with each attempt) covers that.
    const { port, seen } = await receiver((_req, res) => setTimeout(() => res.writeHead(204).end(), 150))
    const body = '{"event":"article.published","data":{"x":"ü"}}'
    const outcome = await sendWebhookRequest({ url: `http://127.0.0.1:${port}/in`, body, headers, allowPrivate: true })
    expect(outcome).toMatchObject({ ok: true, responseStatus: 204, error: null })
    expect(Number.isInteger(outcome.durationMs)).toBe(true)
    expect(outcome.durationMs).toBeGreaterThanOrEqual(140)
    expect(seen).toHaveLength(1)
    expect(seen[0]!.method).toBe('POST')
    expect(seen[0]!.body).toBe(body)
    expect(seen[0]!.headers['x-service-event']).toBe('article.published')
    expect(seen[0]!.headers['content-length']).toBe(String(Buffer.byteLength(body)))
  })

  it('counts non-2xx answers as failures, and does not follow redirects', async () => {
    const { port: failing } = await receiver((_req, res) => res.writeHead(503).end('busy'))
    expect(await sendWebhookRequest({ url: `http://127.0.0.1:${failing}/`, body: '{}', headers, allowPrivate: true })).toMatchObject({
      ok: false,
      responseStatus: 503,
      error: expect.stringContaining('503'),
    })
    const target = await receiver((_req, res) => res.writeHead(200).end())
    const { port: redirecting } = await receiver((_req, res) => res.writeHead(307, { Location: `http://127.0.0.1:${target.port}/` }).end())
    const outcome = await sendWebhookRequest({ url: `http://127.0.0.1:${redirecting}/`, body: '{}', headers, allowPrivate: true })
    expect(outcome).toMatchObject({ ok: false, responseStatus: 307, error: expect.stringContaining('redirects are not followed') })
    expect(target.seen).toHaveLength(0)
  })

  it('fails on time-out and on a refused connection', async () => {
    const { port } = await receiver(() => undefined) // never answers
    const slow = await sendWebhookRequest({ url: `http://127.0.0.1:${port}/`, body: '{}', headers, allowPrivate: true, timeoutMs: 300 })
    expect(slow).toMatchObject({ ok: false, responseStatus: null, error: expect.stringMatching(/Timed out/) })
    expect(slow.durationMs).toBeGreaterThanOrEqual(290)

    const closed = await receiver(() => undefined)
    const closedPort = closed.port
    await new Promise((resolve) => { servers[1]!.closeAllConnections(); servers[1]!.close(resolve) })
    servers.splice(1, 1)
    const refused = await sendWebhookRequest({ url: `http://127.0.0.1:${closedPort}/`, body: '{}', headers, allowPrivate: true })
    expect(refused).toMatchObject({ ok: false, responseStatus: null, error: `Connection refused by 127.0.0.1:${closedPort}.` })
  })

  it('refuses private targets at delivery time unless allowed: literal, localhost, and a host that re-binds to 127.0.0.1', async () => {
    const { port, seen } = await receiver((_req, res) => res.writeHead(200).end())
    const literal = await sendWebhookRequest({ url: `https://127.0.0.1:${port}/`, body: '{}', headers, allowPrivate: false })
    expect(literal).toMatchObject({ ok: false, error: expect.stringMatching(/^Refused: 127\.0\.0\.1/) })
    const plainHttp = await sendWebhookRequest({ url: `http://hooks.example.com:${port}/`, body: '{}', headers, allowPrivate: false })
    expect(plainHttp).toMatchObject({ ok: false, error: expect.stringMatching(/^Refused: http URLs/) })
    const localhost = await sendWebhookRequest({ url: `https://localhost:${port}/`, body: '{}', headers, allowPrivate: false })
    expect(localhost).toMatchObject({ ok: false, error: expect.stringMatching(/^Refused: localhost resolves to .*(127\.0\.0\.1|::1)/) })
    // The name passed the check when the subscription was made; now DNS answers 127.0.0.1.
    setHostResolver(async () => [{ address: '127.0.0.1', family: 4 }])
    const rebound = await sendWebhookRequest({ url: `https://rebinding.example:${port}/`, body: '{}', headers, allowPrivate: false })
    expect(rebound).toMatchObject({ ok: false, responseStatus: null, error: expect.stringMatching(/^Refused: rebinding\.example resolves to .*127\.0\.0\.1/) })
    expect(seen).toHaveLength(0)

    // The same resolver answer is followed when private addresses are allowed: the socket
    // connects to exactly the address the lookup returned.
    const allowed = await sendWebhookRequest({ url: `http://rebinding.example:${port}/`, body: '{}', headers, allowPrivate: true })
    expect(allowed).toMatchObject({ ok: true, responseStatus: 200 })
    expect(seen).toHaveLength(1)
    expect(seen[0]!.headers.host).toBe(`rebinding.example:${port}`)
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z')
  it('reads delay-seconds and HTTP dates, and ignores what it cannot read', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter(' 0 ', now)).toBe(0)
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:05:00 GMT', now)).toBe(300_000)
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('-5', now)).toBeNull()
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter(undefined, now)).toBeNull()
  })
})
