import { describe, expect, it } from 'vitest'
import { knownPayload, responseHeader, responseHeaderEntries, setResponseHeaders, textResponse, utf8Bytes } from './text-response.ts'

describe('a text answer', () => {
  it('reads back the same text through every body reader, clones included', async () => {
    const response = textResponse('{"a":1}', { status: 201, headers: { 'Content-Type': 'application/json' } })
    expect(await response.clone().text()).toBe('{"a":1}')
    expect(await response.clone().json()).toEqual({ a: 1 })
    expect(new TextDecoder().decode(await response.clone().arrayBuffer())).toBe('{"a":1}')
    expect(await new Response(response.body).text()).toBe('{"a":1}')
    expect(response.status).toBe(201)
    expect(knownPayload(response)?.body).toBe('{"a":1}')
  })

  it('keeps headers set before and after its Headers are read, names in any case', () => {
    const response = textResponse('x', { headers: { 'Cache-Control': 'no-store', ETag: '"1"' } })
    setResponseHeaders(response, { 'cache-control': 'private, no-cache', 'X-Request-Id': 'req_1' })
    expect(responseHeader(response, 'CACHE-CONTROL')).toBe('private, no-cache')
    expect(Object.fromEntries(responseHeaderEntries(response))).toEqual({ etag: '"1"', 'cache-control': 'private, no-cache', 'x-request-id': 'req_1' })
    // Once something reads Headers, that object is the answer's headers.
    expect(response.headers.get('x-request-id')).toBe('req_1')
    response.headers.set('X-Extra', 'yes')
    setResponseHeaders(response, { ETag: '"2"' })
    expect(responseHeader(response, 'etag')).toBe('"2"')
    expect(Object.fromEntries(responseHeaderEntries(response))).toEqual({ 'cache-control': 'private, no-cache', etag: '"2"', 'x-extra': 'yes', 'x-request-id': 'req_1' })
  })

  it('takes a Headers object as given', () => {
    const headers = new Headers({ 'Content-Type': 'application/problem+json' })
    headers.append('Set-Cookie', 'a=1')
    headers.append('Set-Cookie', 'b=2')
    const response = textResponse('x', { status: 400, headers })
    expect(responseHeader(response, 'content-type')).toBe('application/problem+json')
    expect(responseHeaderEntries(response)).toContainEqual(['set-cookie', ['a=1', 'b=2']])
  })
})

describe('a text as UTF-8 bytes', () => {
  it('gives the bytes a decoder reads back as the text, whatever its characters', () => {
    const texts = ['', 'plain ascii', 'café, naïve', 'The council’s plan — “riverside”', 'emoji 📰 and CJK 新聞', `${'x'.repeat(5000)}’${'y'.repeat(300_000)}`]
    for (const text of texts) {
      const bytes = utf8Bytes(text)
      expect(bytes.length).toBe(new TextEncoder().encode(text).length)
      expect(bytes.toString('utf8')).toBe(text)
    }
  })

  it('writes a lone surrogate as the replacement character, as any UTF-8 encoder does', () => {
    expect(utf8Bytes('a\ud800b')).toEqual(Buffer.from([0x61, 0xef, 0xbf, 0xbd, 0x62]))
  })
})

