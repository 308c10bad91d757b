import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test } from '@playwright/test'
import { createE2eApiToken } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

// A newsroom's site calls the public content API from its own pages' scripts, on its own origin:
// Chromium's CORS checks (the preflight for the key header, what the script may read) decide.

test("a site's page on its own origin reads published articles with a content key, revalidates with the ETag and reads a refusal", async ({ browser, request, baseURL }) => {
  const admin = await signedInContext(browser, 'admin')
  const settings = await admin.newPage()
  await settings.goto('/settings/api-keys')
  await settings.getByLabel('Name', { exact: true }).fill(`Site ${unique()}`)
  await settings.getByRole('button', { name: 'Create content key' }).click()
  const key = (await settings.getByTestId('new-content-key').textContent()) ?? ''
  expect(key).toMatch(/^nrc_/)
  await admin.close()

  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])
  const word = `festival${unique()}`
  const created = await request.post('/v1/articles', { headers: { authorization: `Bearer ${token}` }, data: { headline: `Harbour ${word} opens` } })
  expect(created.status(), await created.text()).toBe(201)
  const { article_id } = await created.json()
  for (const to_state of ['in-review', 'approved', 'published']) {
    const moved = await request.post(`/v1/articles/${article_id}/transitions`, { headers: { authorization: `Bearer ${token}` }, data: { to_state } })
    expect(moved.status(), await moved.text()).toBe(200)
  }

  const site = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>The Daily Planet</title><main></main>'))
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  const siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  expect(siteOrigin).not.toBe(new URL(baseURL!).origin)
  const reader = await browser.newContext()
  try {
    const page = await reader.newPage()
    await page.goto(siteOrigin)
    const seen = await page.evaluate(
      async ({ api, key, word }) => {
        const url = `${api}/content/v1/articles?q=${word}`
        // The key as a header: not a simple request, so Chromium asks with a preflight first.
        const first = await fetch(url, { headers: { 'X-Content-Key': key } })
        const page = (await first.json()) as { items: { headline: string }[] }
        const etag = first.headers.get('ETag')
        const again = await fetch(url, { headers: { 'X-Content-Key': key, 'If-None-Match': etag ?? '' } })
        const refused = await fetch(`${api}/content/v1/articles`)
        const withCookies = await fetch(url, { headers: { 'X-Content-Key': key }, credentials: 'include' }).then(
          () => 'answered',
          () => 'refused by the browser',
        )
        return {
          status: first.status,
          headlines: page.items.map((item) => item.headline),
          etag,
          again: again.status,
          refused: { status: refused.status, code: ((await refused.json()) as { code: string }).code, requestId: refused.headers.get('X-Request-Id') },
          withCookies,
        }
      },
      { api: new URL(baseURL!).origin, key, word },
    )
    expect(seen).toMatchObject({ status: 200, headlines: [`Harbour ${word} opens`], again: 304, refused: { status: 401, code: 'unauthenticated' }, withCookies: 'refused by the browser' })
    expect(seen.etag).toMatch(/^"/)
    expect(seen.refused.requestId).toMatch(/^req_/)
  } finally {
    await reader.close()
    await new Promise((resolve) => site.close(resolve))
  }
})
