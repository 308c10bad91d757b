import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appListener } from '../../lib/server/app-listener.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
import { rawHttp } from '../support/raw-http.ts'

// break76: /healthz, /readyz and /metrics moved from Next to their route modules, served through
// the /v1 listener and router (6405b22). Two ways that answers differently from before:
// - OPTIONS: Next implements it for every route handler (204, Allow: GET, HEAD, OPTIONS); the /v1
//   router answers 405 problem+json "OPTIONS is not supported by this API."
// - The router now holds routes outside /v1, and matches the URL's normalised path, while the
//   app listener sends a target to it by its raw prefix: a /v1 target with dot-segments
//   (/v1/../metrics, /v1/%2e%2e/readyz) is answered by the operational route (text/plain 401
//   without X-Request-Id, or readiness JSON) where it was a problem+json 404 of /v1.
// The production dispatch (appListener) with a stand-in for Next, as operational-routes does.

let server: Server
let port: number
const metricsToken = 'break76-scrape-token'
let previousToken: string | undefined

beforeAll(async () => {
  previousToken = process.env.METRICS_TOKEN
  process.env.METRICS_TOKEN = metricsToken
  server = createServer(
    appListener(createV1Listener(await loadSourceV1Routes()), (_req, res) => {
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
