import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appListener } from '../../lib/server/app-listener.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
import { rawHttp } from '../support/raw-http.ts'

// A Host header that cannot be part of a URL (`a b`, `[`, `%`, `x:99999`, empty) was a 500 from
// `new URL` in the listener. It is a 400 before anything builds a URL from it: the problem
// `invalid_host` from /v1, plain text from everything else the listener serves. The production
// server's own dispatch (appListener) is used, with a stand-in for Next that records whatever
// reaches it (e2e/bad-requests.spec.ts sends the same to the built server with Next itself).

let server: Server
let port: number
const reachedNext: string[] = []

beforeAll(async () => {
  server = createServer(
    appListener(createV1Listener(await loadSourceV1Routes()), (req, res) => {
      reachedNext.push(`${req.method} ${req.url} Host: ${req.headers.host}`)
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>')
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))

const badHosts = ['a b', '[', '%', 'x:99999', '', 'x:0', 'a/b', 'a@b', 'host:port', '[::1', 'é.example', 'a\tb']
const send = (method: string, target: string, host: string) =>
  rawHttp(port, Buffer.from(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, 'latin1'))

describe('a malformed Host header', () => {
  it.each(badHosts)("Host '%s' on /v1 is a 400 invalid_host problem", async (host) => {
    for (const [method, target] of [['GET', '/v1/articles'], ['POST', '/v1/articles/bulk'], ['TRACE', '/v1/articles'], ['GET', '/v1/openapi.json'], ['GET', '/v1/nothing-here']]) {
      const answer = await send(method!, target!, host)
      expect(answer.status, `${method} ${target}`).toBe(400)
      expect(answer.headers['content-type']).toBe('application/problem+json')
      expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'invalid_host', detail: expect.stringContaining('Host header') })
      expect(answer.headers['x-request-id']).toMatch(/^req_/)
    }
  })

  it.each(badHosts)("Host '%s' on the portal, sign-in, tRPC, health and metrics is a plain 400 that never reaches Next", async (host) => {
    reachedNext.length = 0
    for (const [method, target] of [['GET', '/'], ['GET', '/signin'], ['POST', '/api/auth/callback/credentials'], ['POST', '/api/trpc/articles.create'], ['GET', '/healthz'], ['GET', '/readyz'], ['GET', '/metrics'], ['TRACE', '/']]) {
      const answer = await send(method!, target!, host)
      expect(answer.status, `${method} ${target}`).toBe(400)
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8')
      expect(answer.body).toContain('Host header')
    }
    expect(reachedNext).toEqual([])
  })

  it('a good Host, with or without a port, still reaches /v1 and Next', async () => {
    reachedNext.length = 0
    for (const host of ['127.0.0.1', `127.0.0.1:${port}`, 'news.example.com', '[::1]:8080', 'localhost:65535']) {
      expect((await send('GET', '/v1/openapi.json', host)).status, host).toBe(200)
      expect((await send('GET', '/signin', host)).status, host).toBe(200)
    }
    expect(reachedNext).toHaveLength(5)
    // HTTP/1.0 may leave Host out: read as for localhost, as before.
    const old = await rawHttp(port, 'GET /v1/openapi.json HTTP/1.0\r\n\r\n')
    expect(old.status).toBe(200)
  })
})
