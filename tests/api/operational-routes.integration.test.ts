import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appListener } from '../../lib/server/app-listener.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
import { rawHttp } from '../support/raw-http.ts'

// /healthz, /readyz and /metrics are answered by their route modules without Next (issue 50: a
// request through Next turns on promise hooks every later request pays for). The production
// dispatch (appListener) with a stand-in for Next that records what reaches it.

let server: Server
let port: number
const reachedNext: string[] = []
const metricsToken = 'operational-routes-scrape-token'
let previousToken: string | undefined

beforeAll(async () => {
  previousToken = process.env.METRICS_TOKEN
  process.env.METRICS_TOKEN = metricsToken
  server = createServer(
    appListener(createV1Listener(await loadSourceV1Routes()), (req, res) => {
      reachedNext.push(`${req.method} ${req.url}`)
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>')
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  if (previousToken === undefined) delete process.env.METRICS_TOKEN
  else process.env.METRICS_TOKEN = previousToken
  await new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
})

const send = (method: string, target: string, headers = '') => rawHttp(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Connection: close\r\n\r\n`)

describe('the operational routes', () => {
  it('answer liveness, readiness and metrics (HEAD too, query strings ignored) without reaching Next', async () => {
    reachedNext.length = 0
    const live = await send('GET', '/healthz')
    expect(live.status).toBe(200)
    expect(JSON.parse(live.body)).toEqual({ status: 'ok' })
    expect(live.headers['cache-control']).toBe('no-store')
    // Security headers as on every answer of the server.
    expect(live.headers['x-content-type-options']).toBe('nosniff')

    const head = await send('HEAD', '/healthz?probe=1')
    expect(head.status).toBe(200)
    expect(head.body).toBe('')

    const ready = await send('GET', '/readyz')
    expect(ready.status).toBe(200)
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'ready' })

    expect((await send('GET', '/metrics')).status).toBe(401)
    const scrape = await send('GET', '/metrics', `Authorization: Bearer ${metricsToken}\r\n`)
    expect(scrape.status).toBe(200)
    expect(scrape.body).toContain('# TYPE')

    expect(reachedNext).toEqual([])
  })

  it('refuse a method they do not serve with a 405, and leave longer paths to Next', async () => {
    reachedNext.length = 0
    const post = await send('POST', '/healthz', 'Content-Length: 0\r\n')
    expect(post.status).toBe(405)
    // RFC 9110: a 405 names what the resource serves.
    expect(post.headers['allow']).toBe('GET, HEAD, OPTIONS')
    expect(reachedNext).toEqual([])
    expect((await send('GET', '/healthzz')).status).toBe(200)
    expect((await send('GET', '/metrics/other')).status).toBe(200)
    expect(reachedNext).toEqual(['GET /healthzz', 'GET /metrics/other'])
  })
})

// break76 (helper-76): two ways the move from Next answered differently. OPTIONS, which Next
// implements for every route handler; and a /v1 target with dot-segments (/v1/../metrics), which
// normalises to an operational path and was answered by it rather than by /v1's 404.
describe('the operational routes, as Next answered them (break76)', () => {
  it('answer OPTIONS with 204 and Allow naming GET, HEAD and OPTIONS, as Next did', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const answer = await send('OPTIONS', path)
      expect({ path, status: answer.status }).toEqual({ path, status: 204 })
      expect(answer.headers['allow']).toBe('GET, HEAD, OPTIONS')
      expect(answer.body).toBe('')
    }
  })

  it('are not reached from a /v1 target through dot-segments: that stays a /v1 problem+json 404 with X-Request-Id', async () => {
    for (const target of ['/v1/../metrics', '/v1/%2e%2e/readyz', '/v1/../healthz']) {
      const answer = await send('GET', target)
      expect({ target, status: answer.status, type: answer.headers['content-type'] }).toEqual({ target, status: 404, type: 'application/problem+json' })
      expect(answer.headers['x-request-id']).toMatch(/^req_/)
    }
  })
})
