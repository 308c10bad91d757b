import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appListener } from '../../lib/server/app-listener.ts'
import { refuseConnect } from '../../lib/server/unserved-methods.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
import { rawHttp } from '../support/raw-http.ts'

// Methods the app serves nowhere get a 405 problem with Allow, unauthenticated and before any
// routing to Next or to a handler: TRACE used to be a 500 with a stack trace. The production
// server's own dispatch (appListener, refuseConnect) is used, with a stand-in for Next that
// records whatever reaches it.

let server: Server
let port: number
const reachedNext: string[] = []

beforeAll(async () => {
  server = createServer(
    appListener(createV1Listener(await loadSourceV1Routes()), (req, res) => {
      reachedNext.push(`${req.method} ${req.url}`)
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>')
    }),
  )
  refuseConnect(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))

const send = (method: string, target: string) => rawHttp(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)

describe('unserved methods', () => {
  it.each(['TRACE', 'PROPFIND', 'PURGE', 'MKCOL', 'LOCK'])('%s /v1/articles is a 405 problem with the route\'s Allow, without a token', async (method) => {
    const answer = await send(method, '/v1/articles')
    expect(answer.status).toBe(405)
    expect(answer.headers['content-type']).toBe('application/problem+json')
    expect(answer.headers.allow).toBe('GET, POST, HEAD, OPTIONS')
    expect(JSON.parse(answer.body)).toMatchObject({ status: 405, code: 'method_not_allowed', detail: expect.stringContaining(method) })
    expect(answer.body).not.toMatch(/\bat .*\.ts:\d+/)
  })

  it('Allow follows the route: an article takes GET and PATCH', async () => {
    const answer = await send('TRACE', '/v1/articles/art_x')
    expect(answer.status).toBe(405)
    expect(answer.headers.allow).toBe('GET, PATCH, HEAD, OPTIONS')
  })

  it.each([['TRACE', '/'], ['TRACE', '/articles'], ['PROPFIND', '/settings']])('%s %s (a page) is a 405 problem and never reaches Next', async (method, target) => {
    const answer = await send(method, target)
    expect(answer.status).toBe(405)
    expect(answer.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'method_not_allowed' })
    expect(reachedNext).toEqual([])
  })

  it.each(['127.0.0.1:443', '/v1/articles'])('CONNECT %s is a 405 problem, and the connection is closed', async (target) => {
    const answer = await send('CONNECT', target)
    expect(answer.status).toBe(405)
    expect(answer.headers.allow).toBeDefined()
    expect(JSON.parse(answer.body)).toMatchObject({ status: 405, code: 'method_not_allowed' })
  })

  it('served methods still go where they did', async () => {
    expect((await send('GET', '/')).status).toBe(200)
    expect(reachedNext).toEqual(['GET /'])
    expect((await send('GET', '/v1/articles')).status).toBe(401)
  })
})
