import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setSearchLanguage } from '../../lib/articles/search-language.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let writer: ReturnType<typeof apiClient>
let reader: ReturnType<typeof apiClient>
const ids: Record<string, string> = {}

async function create(client: ReturnType<typeof apiClient>, key: string, article: Record<string, unknown>) {
  const answer = await client.post('/v1/articles', article)
  expect(answer.status).toBe(201)
  ids[key] = answer.body.article_id
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  other = await createTestTenant()
  writer = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  reader = apiClient(server.url, await newsroom.token(['articles:read']))
  const [news, sport] = newsroom.departments
  await create(writer, 'headline', { headline: 'Riverside plan approved by council', body: '<p>A long debate ended.</p>', department_id: news!.id, tags: ['local'] })
  await create(writer, 'body', {
    headline: 'Evening briefing',
    body: '<p>Among other things, the council met and the riverside was mentioned; a plan follows later.</p>',
    department_id: sport!.id,
    tags: ['briefing'],
  })
  await create(writer, 'phrase', { headline: 'Budget row', lede: 'The riverside plan costs more than promised.', department_id: news!.id, tags: ['budget'] })
  await create(writer, 'markup', {
    headline: 'Harbour opening',
    body: '<p><strong>Boats</strong> arrive, see <a href="https://example.com/strong">the schedule</a> <em class="href">today</em>.</p>',
    department_id: news!.id,
  })
  await create(writer, 'tagged', { headline: 'Weekend markets', tags: ['Farmers'], department_id: sport!.id, status: 'in-review' })
  const otherWriter = apiClient(server.url, await other.token(['articles:read', 'articles:write']))
  await create(otherWriter, 'foreign', { headline: 'Riverside plan elsewhere', body: '<p>council riverside plan</p>' })
})
afterAll(() => server.close())

async function search(query: string): Promise<{ ids: string[]; body: any }> {
  const answer = await reader.get(`/v1/articles?${query}`)
  expect(answer.status, answer.text).toBe(200)
  const keyOf = (id: string) => Object.entries(ids).find(([, value]) => value === id)?.[0] ?? id
  return { ids: answer.body.items.map((item: { article_id: string }) => keyOf(item.article_id)), body: answer.body }
}

describe('GET /v1/articles?q=', () => {
  it('ranks a headline match above a lede match above scattered body words', async () => {
    const { ids: found, body } = await search(`q=${encodeURIComponent('riverside plan')}`)
    expect(found).toEqual(['headline', 'phrase', 'body'])
    expect(body.total).toBe(3)
    const ranks = body.items.map((item: { match: { rank: number } }) => item.match.rank)
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks)
  })

  it('matches a quoted phrase only where the words stand together, and honours -exclusions and or', async () => {
    expect((await search(`q=${encodeURIComponent('"riverside plan"')}`)).ids.sort()).toEqual(['headline', 'phrase'])
    expect((await search(`q=${encodeURIComponent('riverside -budget')}`)).ids.sort()).toEqual(['body', 'headline'])
    expect((await search(`q=${encodeURIComponent('harbour or markets')}`)).ids.sort()).toEqual(['markup', 'tagged'])
  })

  it('finds tags case-insensitively, and never the body markup', async () => {
    expect((await search('q=farmers')).ids).toEqual(['tagged'])
    expect((await search('q=boats')).ids).toEqual(['markup'])
    for (const word of ['href', 'strong', 'https', 'class', 'em', 'p']) {
      expect((await search(`q=${word}`)).ids, word).toEqual([])
    }
  })

  it('reads a phrase across inline markup and entities as the text a reader sees, and never an attribute', async () => {
    const answer = await writer.post('/v1/articles', {
      headline: 'Quay works',
      body: '<p>The <b>ferry</b>&nbsp;<em>timetable</em> changes at the quay&#39;s end.</p><p><img src="https://example.com/gulls.png" alt="gull photo" /> Tom&amp;Jerry</p>',
    })
    expect(answer.status).toBe(201)
    const found = async (q: string) => (await reader.get(`/v1/articles?q=${encodeURIComponent(q)}`)).body.items.map((item: { article_id: string }) => item.article_id)
    expect(await found('"ferry timetable"')).toEqual([answer.body.article_id])
    expect(await found('"quay s end"')).toEqual([answer.body.article_id])
    expect(await found('jerry')).toEqual([answer.body.article_id])
    expect(await found('gull')).toEqual([])
    expect(await found('gulls')).toEqual([])
  })

  it('combines with every filter and pages in relevance order', async () => {
    const [news, sport] = newsroom.departments
    expect((await search(`q=riverside&department_id=${news!.id}`)).ids).toEqual(['headline', 'phrase'])
    expect((await search(`q=riverside&department_id=${sport!.id}`)).ids).toEqual(['body'])
    expect((await search('q=riverside&tag=budget')).ids).toEqual(['phrase'])
    expect((await search('q=markets&status=in-review')).ids).toEqual(['tagged'])
    expect((await search('q=markets&status=draft')).ids).toEqual([])
    expect((await search(`q=riverside&author_id=${newsroom.users.admin.id}`)).ids).toHaveLength(3)
    expect((await search(`q=riverside&author_id=${newsroom.users.writer.id}`)).ids).toEqual([])
    expect((await search('q=riverside&published_after=2020-01-01T00:00:00Z')).ids).toEqual([])
    const first = await search('q=riverside&limit=2&offset=0')
    const second = await search('q=riverside&limit=2&offset=2')
    expect([...first.ids, ...second.ids]).toEqual(['headline', 'phrase', 'body'])
    expect(first.body.next_offset).toBe(2)
    expect(second.body.next_offset).toBeNull()
    // Every page, and one past the end, counts all the matches.
    const beyond = await search('q=riverside&limit=2&offset=10')
    expect([first.body.total, second.body.total, beyond.body.total]).toEqual([3, 3, 3])
    expect(beyond.ids).toEqual([])
    expect((await search('q=riverside&tag=budget')).body.total).toBe(1)
  })

  it('shows a snippet with the matched words marked and the text escaped', async () => {
    const { body } = await search('q=debate')
    expect(body.items[0].match.snippet).toContain('<mark>debate</mark>')
    expect(body.items[0].match.snippet).not.toContain('<p>')
    const plain = await reader.get('/v1/articles?limit=1')
    expect(plain.body.items[0]).not.toHaveProperty('match')
  })

  it("never returns another newsroom's articles", async () => {
    expect((await search('q=elsewhere')).ids).toEqual([])
    expect((await search('q=riverside')).ids).not.toContain('foreign')
  })

  it('refuses an empty or oversized q with a 422', async () => {
    expect((await reader.get('/v1/articles?q=')).status).toBe(422)
    expect((await reader.get(`/v1/articles?q=${'a'.repeat(501)}`)).status).toBe(422)
    // Syntax websearch cannot parse is still a search, never a 500.
    expect((await reader.get(`/v1/articles?q=${encodeURIComponent('"unclosed & | ! (')}`)).status).toBe(200)
  })

  it('follows the tenant language: english finds word forms, simple does not', async () => {
    expect((await search('q=approve')).ids).toEqual([])
    await setSearchLanguage(newsroom.tenant.id, 'english')
    expect((await search('q=approve')).ids).toEqual(['headline'])
    await create(writer, 'stemmed', { headline: 'Councils approving plans' })
    expect((await search('q=approve')).ids.sort()).toEqual(['headline', 'stemmed'])
    await setSearchLanguage(newsroom.tenant.id, 'simple')
    expect((await search('q=approve')).ids).toEqual([])
  })
})
