import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { textResponse } from '../api/text-response.ts'
import { sendWebResponse } from './node-http.ts'

let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

/** Serves `response` once over loopback and returns what the client received, headers raw. */
async function sent(response: () => Response, headers: Record<string, string> = {}, method = 'GET') {
  server = createServer((req, res) => void sendWebResponse(req, res, response()))
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return new Promise<{ status: number; raw: [string, string][]; body: Buffer }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const raw: [string, string][] = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) raw.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!])
        resolve({ status: res.statusCode!, raw, body: Buffer.concat(chunks) })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

const valuesOf = (raw: [string, string][], name: string) => raw.filter(([key]) => key === name).map(([, value]) => value)

describe('sending a route handler’s answer over Node', () => {
  it('sends each header once: the answer’s own over the defaults, and the real length', async () => {
    const { status, raw, body } = await sent(() =>
      textResponse('{"ok":true}', { status: 201, headers: { 'Content-Type': 'application/json', 'X-Frame-Options': 'SAMEORIGIN', 'Content-Length': '999' } }),
    )
    expect(status).toBe(201)
    expect(body.toString()).toBe('{"ok":true}')
    expect(valuesOf(raw, 'x-frame-options')).toEqual(['SAMEORIGIN'])
    expect(valuesOf(raw, 'x-content-type-options')).toEqual(['nosniff'])
    expect(valuesOf(raw, 'content-length')).toEqual([String(body.length)])
    expect(valuesOf(raw, 'content-type')).toEqual(['application/json'])
  })

  it('compresses a large answer for a client that accepts gzip, adding to its Vary', async () => {
    const text = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ headline: `Story ${i}` })) })
    const { raw, body } = await sent(() => textResponse(text, { headers: { 'content-type': 'application/json', Vary: 'Origin' } }), { 'accept-encoding': 'gzip' })
    expect(valuesOf(raw, 'content-encoding')).toEqual(['gzip'])
    expect(valuesOf(raw, 'vary')).toEqual(['Origin, Accept-Encoding'])
    expect(gunzipSync(body).toString()).toBe(text)
    expect(valuesOf(raw, 'content-length')).toEqual([String(body.length)])
  })

  it('sends a web Response’s every Set-Cookie, and no body for HEAD', async () => {
    const headers = new Headers({ 'content-type': 'text/plain' })
    headers.append('set-cookie', 'a=1')
    headers.append('set-cookie', 'b=2')
    const { raw } = await sent(() => new Response('hello', { headers }))
    expect(valuesOf(raw, 'set-cookie')).toEqual(['a=1', 'b=2'])
    const head = await sent(() => textResponse('hello', { headers: { 'content-type': 'text/plain' } }), {}, 'HEAD')
    expect(head.body.length).toBe(0)
    expect(valuesOf(head.raw, 'content-type')).toEqual(['text/plain'])
  })
})
