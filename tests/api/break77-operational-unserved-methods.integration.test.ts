import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appListener } from '../../lib/server/app-listener.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
import { rawHttp } from '../support/raw-http.ts'

// break77: /healthz, /readyz and /metrics answer their own 405s naming what they serve
// (POST /healthz: "use GET, HEAD or OPTIONS", Allow: GET, HEAD, OPTIONS; break76). A method the
// app serves nowhere (TRACE, PROPFIND…) on the same paths is answered before that, by the app
// listener, with the app-wide Allow: it tells an operator's probe to use POST, PUT, PATCH or
// DELETE on /healthz, each of which is then refused 405. RFC 9110 §15.5.6: a 405's Allow lists
// the methods the target resource supports. The production dispatch (appListener) with a
// stand-in for Next, as break76-operational-routes does.

let server: Server
let port: number
const metricsToken = 'break77-scrape-token'
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

const send = (method: string, target: string) => rawHttp(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)

describe('the operational routes refuse methods the app serves nowhere (break77)', () => {
  it('with an Allow naming what the route serves, as their own 405 and OPTIONS do', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const options = await send('OPTIONS', path)
      expect(options.headers['allow']).toBe('GET, HEAD, OPTIONS')
      for (const method of ['TRACE', 'PROPFIND']) {
        const answer = await send(method, path)
        expect({ path, method, status: answer.status }).toEqual({ path, method, status: 405 })
        expect({ path, method, allow: answer.headers['allow'] }).toEqual({ path, method, allow: 'GET, HEAD, OPTIONS' })
        expect(JSON.parse(answer.body).detail).toBe(`${method} is not supported here; use GET, HEAD or OPTIONS.`)
      }
    }
  })
})
