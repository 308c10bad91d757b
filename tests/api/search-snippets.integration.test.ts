import { afterAll, beforeAll, describe, it } from 'vitest'
import { sqlPool } from '../../lib/db/client.ts'
import { setSearchLanguage } from '../../lib/articles/search-language.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { createSnippetCases, expectSnippetsOfWholeText } from '../support/snippet-cases.ts'

// A snippet is ts_headline of the article's lede and body text, however it is computed
// (search-articles.ts makes a headline-only match's from the lede alone). The embedded store's
// counterpart is in search-embedded-store.integration.test.ts.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  await createSnippetCases((article) => client.post('/v1/articles', article))
})
afterAll(() => server.close())

describe('search snippets', () => {
  it('are the snippet of the whole lede and body text, whether the words are in the headline, the lede, the body or a tag', async () => {
    await expectSnippetsOfWholeText((path) => client.get(path), (text, values) => sqlPool.query(text, values), newsroom.tenant.id)
  })

  it('are so in a language that stems too', async () => {
    await setSearchLanguage(newsroom.tenant.id, 'english')
    await expectSnippetsOfWholeText((path) => client.get(path), (text, values) => sqlPool.query(text, values), newsroom.tenant.id)
  })
})
