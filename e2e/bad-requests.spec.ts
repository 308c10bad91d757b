import { expect, test } from '@playwright/test'
import { e2eBaseUrl } from '../playwright.config.ts'
import { rawHttp } from '../tests/support/raw-http.ts'
import { signedInContext } from './support/portal-session.ts'

// What a client sends is answered with a 4xx that says what to fix, never a 500, by the built
// server with Next itself behind the listener: a malformed Host, and the shapes next-auth and
// tRPC got wrong (issue 28). /v1 has its own fuzz test (tests/api/fuzz-every-operation).

const port = Number(new URL(e2eBaseUrl).port)
const everyDoor = ['/', '/signin', '/articles', '/api/auth/session', '/api/auth/csrf', '/api/trpc/articles.list', '/healthz', '/readyz', '/metrics', '/docs/api', '/docs/content-api', '/v1/articles', '/v1/openapi.json', '/content/v1/openapi.json']

test('a malformed Host is a 400 on every door of the server, problem+json under /v1', async () => {
  for (const host of ['a b', '[', '%', 'x:99999', '']) {
    for (const path of everyDoor) {
      const answer = await rawHttp(port, Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, 'latin1'))
      const where = `Host '${host}' ${path}`
      expect(answer.status, where).toBe(400)
      if (path.startsWith('/v1')) expect(JSON.parse(answer.body), where).toMatchObject({ code: 'invalid_host', status: 400 })
      else expect(answer.body, where).toContain('Host header')
    }
  }
  const fine = await rawHttp(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
  expect(fine.status).toBe(200)
})

test('sign-in: a bad callbackUrl, callback cookie or JSON body is a 4xx, not a 500', async ({ request }) => {
  for (const action of ['session', 'csrf', 'providers', 'signin', 'callback/credentials']) {
    for (const value of ['%00', '%ED%A0%80', '%FF', 'foo']) {
      const answer = await request.get(`/api/auth/${action}?callbackUrl=${value}`, { maxRedirects: 0 })
      expect(answer.status(), `${action} callbackUrl=${value}`).toBe(400)
      expect(await answer.text()).toContain('callbackUrl must be a path on this site')
    }
  }
  const cookie = await request.get('/api/auth/session', { headers: { cookie: 'next-auth.callback-url=%00' } })
  expect(cookie.status()).toBe(400)
  for (const [body, status] of [['{"email":', 400], ['['.repeat(5_000) + ']'.repeat(5_000), 422], ['{"email":"\\ud800"}', 422]] as const) {
    const answer = await request.post('/api/auth/callback/credentials', { headers: { 'content-type': 'application/json' }, data: Buffer.from(body), maxRedirects: 0 })
    expect(answer.status(), body.slice(0, 20)).toBe(status)
  }
  // Odd forms are next-auth's to judge: a redirect back to sign-in, never a 500.
  for (const form of ['email=%ED%A0%80&password=%00', 'email[]=a&email[x]=b', '%%%', `email=${'a'.repeat(200_000)}`]) {
    const answer = await request.post('/api/auth/callback/credentials', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, data: Buffer.from(form), maxRedirects: 0 })
    expect(answer.status(), form.slice(0, 20)).toBeLessThan(500)
  }
})

test('tRPC: a lone surrogate is a 422 on its field, deep nesting a 422, broken JSON a 400', async ({ browser }) => {
  const context = await signedInContext(browser, 'admin')
  const portal = { 'x-newsroom-portal': '1', 'content-type': 'application/json' }
  // A Buffer is sent as it is; a string with a JSON content type may be encoded again.
  const post = (path: string, data: string) => context.request.post(`/api/trpc/${path}`, { headers: portal, data: Buffer.from(data) })

  const surrogate = await post('articles.create', '{"headline":"\\ud800 Council"}')
  expect(surrogate.status()).toBe(422)
  expect((await surrogate.json()).error.data.fieldErrors).toEqual([{ field: 'headline', message: expect.stringContaining('lone UTF-16 surrogate (\\ud800)') }])

  for (const procedure of ['articles.create', 'apiKeys.create', 'webhooks.create', 'users.create']) {
    const deep = await post(procedure, '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000))
    expect(deep.status(), procedure).toBe(422)
    expect((await deep.json()).error.data.domainCode, procedure).toBe('nesting_too_deep')
    const key = await post(procedure, '{"\\udc00":"x"}')
    expect(key.status(), procedure).toBe(422)
  }
  const batch = await context.request.post('/api/trpc/articles.create,apiKeys.create?batch=1', { headers: portal, data: Buffer.from('{"0":{"headline":"x\\udbff"},"1":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}') })
  expect(batch.status()).toBeLessThan(500)
  const broken = await post('articles.create', '{"headline":')
  expect(broken.status()).toBe(400)
  expect((await broken.json()).error.data.code).toBe('BAD_REQUEST')
  const query = await context.request.get(`/api/trpc/articles.list?input=${encodeURIComponent('{"q":"\\ud800"}')}`)
  expect(query.status()).toBe(422)
  await context.close()
})

test('an address with a malformed percent-escape is a 400 that says so, on pages, tRPC and next-auth alike, signed in or not', async ({ browser, request }) => {
  const context = await signedInContext(browser, 'admin')
  const addresses = ['/articles/%FF', '/articles/%ED%A0%80', '/articles/100%', '/settings/api-keys/%FF', '/settings/webhooks/%FF', '/settings/webhooks/%E2%82/edit', '/api/trpc/%FF', '/api/auth/%FF', '/%FF']
  for (const client of [context.request, request]) {
    for (const address of addresses) {
      const answer = await client.get(address, { maxRedirects: 0 })
      expect(answer.status(), address).toBe(400)
      expect(await answer.text(), address).toContain('malformed percent-escape')
    }
  }
  // A well-formed escape still reaches its page (the article page, which looks the article up itself).
  const wellFormed = await context.request.get('/articles/%C3%A9t%C3%A9', { maxRedirects: 0 })
  expect(wellFormed.status()).toBe(200)
  expect(wellFormed.headers()['content-type']).toContain('text/html')
  await context.close()
})
