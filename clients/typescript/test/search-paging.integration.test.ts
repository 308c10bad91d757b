import { afterAll, beforeAll, expect, it } from 'vitest'
import { startApiServer } from '../../../tests/support/api-server.ts'
import { createTestTenant } from '../../../tests/support/fixtures.ts'
import { createNewsroomClient } from '../src/index.ts'

// `api.articles.list` promises "every article the query matches, page after page". A search
// (`q`) answers in relevance order and pages by offset (next_cursor is null, next_offset is
// set), so a helper that follows only the cursor stops after the first page.
let server: Awaited<ReturnType<typeof startApiServer>>
afterAll(async () => server?.close())
beforeAll(async () => {
  server = await startApiServer()
})

it('walks every page of a search, not only the first', async () => {
  const newsroom = await createTestTenant()
  const api = createNewsroomClient({ baseUrl: server.url, token: await newsroom.token(['articles:read', 'articles:write']) })
  for (const n of [1, 2, 3]) await api.articles.create({ headline: `Zebrafish census ${n}`, status: 'in-review' })
  const found: string[] = []
  for await (const article of api.articles.list({ q: 'zebrafish', limit: 1 })) found.push(article.headline)
  expect(found.sort()).toEqual(['Zebrafish census 1', 'Zebrafish census 2', 'Zebrafish census 3'])
})
