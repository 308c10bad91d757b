import { expect, test } from '@playwright/test'

// The production server answers /v1 from its route files and hands everything else to Next
// (lib/server/app-server.ts). Both halves must carry the same headers and behaviour.

test('/v1 through the production server: security headers, gzip, HEAD, problem+json 404s', async ({ request }) => {
  const spec = await request.get('/v1/openapi.json', { headers: { 'Accept-Encoding': 'gzip' } })
  expect(spec.status()).toBe(200)
  expect(spec.headers()['content-encoding']).toBe('gzip')
  expect(spec.headers()['vary']).toContain('Accept-Encoding')
  expect(spec.headers()['x-content-type-options']).toBe('nosniff')
  expect(spec.headers()['x-frame-options']).toBe('DENY')
  expect(spec.headers()['referrer-policy']).toBe('strict-origin-when-cross-origin')
  expect((await spec.json()).openapi).toMatch(/^3\.1/)

  const plain = await request.get('/v1/openapi.json', { headers: { 'Accept-Encoding': 'identity' } })
  expect(plain.headers()['content-encoding']).toBeUndefined()
  expect(Number(plain.headers()['content-length'])).toBe((await plain.body()).length)

  const head = await request.head('/v1/openapi.json')
  expect(head.status()).toBe(200)
  expect((await head.body()).length).toBe(0)

  const missing = await request.get('/v1/no-such-thing')
  expect(missing.status()).toBe(404)
  expect(missing.headers()['content-type']).toContain('application/problem+json')
  expect(await missing.json()).toMatchObject({ code: 'not_found' })

  const unauthenticated = await request.get('/v1/articles')
  expect(unauthenticated.status()).toBe(401)
  expect(unauthenticated.headers()['www-authenticate']).toContain('Bearer')
})

test('the portal is still Next’s: its pages carry the per-request CSP nonce', async ({ request }) => {
  const first = await request.get('/signin')
  const second = await request.get('/signin')
  expect(first.status()).toBe(200)
  expect(first.headers()['content-type']).toContain('text/html')
  const nonce = (response: typeof first) => /'nonce-([^']+)'/.exec(response.headers()['content-security-policy'] ?? '')?.[1]
  expect(nonce(first)).toBeTruthy()
  expect(nonce(first)).not.toBe(nonce(second))
  expect(first.headers()['x-content-type-options']).toBe('nosniff')
})
