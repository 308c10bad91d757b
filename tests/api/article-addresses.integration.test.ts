import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Editable slugs (issue 13.4): the slug follows the headline until it is set or the article is
// first published; a published article whose slug changes moves to the new address and keeps
// the old one in previous_urls, with an article.updated event saying so.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

const site = () => `https://${newsroom.tenant.slug}.example/articles/`
const addressOf = (slug: string, articleId: string) => `${site()}${slug}-${articleId.replace(/^art_/, '')}`

async function create(body: Record<string, unknown>) {
  const answer = await client.post('/v1/articles', body)
  expect(answer.status).toBe(201)
  return answer.body
}

async function moveTo(articleId: string, ...states: string[]) {
  let answer
  for (const to_state of states) {
    answer = await client.post(`/v1/articles/${articleId}/transitions`, { to_state })
    expect(answer.status).toBe(200)
  }
  return answer!.body
}

async function updatedEvents(articleId: string) {
  const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'article.updated' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
  return events.map((event) => event.data as Record<string, unknown>).filter((data) => data.article_id === articleId)
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
})
afterAll(() => server.close())

describe('slugs before the first publication', () => {
  it('follow the headline until one is set, then stay', async () => {
    const article = await create({ headline: 'Café owners protest new rules' })
    expect(article).toMatchObject({ slug: 'cafe-owners-protest-new-rules', previous_urls: [], url: null })

    const renamed = await client.patch(`/v1/articles/${article.article_id}`, { headline: 'Café owners win appeal' })
    expect(renamed.body.slug).toBe('cafe-owners-win-appeal')

    const pinned = await client.patch(`/v1/articles/${article.article_id}`, { slug: 'cafe-appeal' })
    expect(pinned.status).toBe(200)
    const renamedAgain = await client.patch(`/v1/articles/${article.article_id}`, { headline: 'Appeal upheld for café owners' })
    expect(renamedAgain.body.slug).toBe('cafe-appeal')

    const released = await client.patch(`/v1/articles/${article.article_id}`, { slug: null })
    expect(released.body.slug).toBe('appeal-upheld-for-cafe-owners')
    expect(released.body.previous_urls).toEqual([])
  })

  it('is taken from create, and the first publication uses it', async () => {
    const article = await create({ headline: 'Harbour reopens after storm', slug: 'harbour-reopens' })
    expect(article.slug).toBe('harbour-reopens')
    const published = await moveTo(article.article_id, 'in-review', 'approved', 'published')
    expect(published).toMatchObject({ slug: 'harbour-reopens', url: addressOf('harbour-reopens', article.article_id), previous_urls: [] })
  })

  it('refuses a slug that is not lower-case words joined by hyphens, saying the form it needs', async () => {
    for (const slug of ['Harbour Reopens', '-harbour', 'harbour--reopens', '', 'a'.repeat(81), 'café']) {
      const answer = await client.post('/v1/articles', { headline: 'Bad slug', slug })
      expect(answer.status, slug).toBe(422)
      expect(answer.body.errors.map((error: { field: string }) => error.field)).toContain('slug')
    }
    const article = await create({ headline: 'Good slug' })
    const patched = await client.patch(`/v1/articles/${article.article_id}`, { slug: 'Not A Slug' })
    expect(patched.status).toBe(422)
    expect(patched.body.errors[0].message).toMatch(/lower-case letters and digits joined by single hyphens/)
  })
})

describe('slugs after the first publication', () => {
  it('are kept when the headline changes, so a live page never moves by itself', async () => {
    const article = await create({ headline: 'Museum unveils summer exhibition' })
    const published = await moveTo(article.article_id, 'in-review', 'approved', 'published')
    const renamed = await client.patch(`/v1/articles/${article.article_id}`, { headline: 'Museum unveils record summer exhibition' })
    expect(renamed.body).toMatchObject({ slug: 'museum-unveils-summer-exhibition', url: published.url, previous_urls: [] })
  })

  it('move a live article to the new address, keep the old one and tell subscribers', async () => {
    const article = await create({ headline: 'Council to vote on riverside plan' })
    const published = await moveTo(article.article_id, 'in-review', 'approved', 'published')
    const oldUrl = addressOf('council-to-vote-on-riverside-plan', article.article_id)
    expect(published.url).toBe(oldUrl)

    const moved = await client.patch(`/v1/articles/${article.article_id}`, { slug: 'council-approves-riverside-plan' })
    expect(moved.status).toBe(200)
    const newUrl = addressOf('council-approves-riverside-plan', article.article_id)
    expect(moved.body).toMatchObject({ status: 'published', slug: 'council-approves-riverside-plan', url: newUrl, previous_urls: [oldUrl] })

    const events = await updatedEvents(article.article_id)
    expect(events.at(-1)).toMatchObject({ url: newUrl, previous_urls: [oldUrl], slug: 'council-approves-riverside-plan' })

    // A list read (raw SQL) and a get (Prisma) show the same address.
    const listed = await client.get(`/v1/articles?status=published&limit=200`)
    expect(listed.body.items.find((item: { article_id: string }) => item.article_id === article.article_id)).toMatchObject({ url: newUrl, previous_urls: [oldUrl] })

    // Moving back to the first address makes it current again; it is no longer a redirect.
    const back = await client.patch(`/v1/articles/${article.article_id}`, { slug: 'council-to-vote-on-riverside-plan' })
    expect(back.body).toMatchObject({ url: oldUrl, previous_urls: [newUrl] })
  })

  it('keep the address an unpublished article had, and republishing at it makes it current again', async () => {
    const article = await create({ headline: 'Rail operator cuts night service' })
    const published = await moveTo(article.article_id, 'in-review', 'approved', 'published')
    const unpublished = await moveTo(article.article_id, 'draft')
    expect(unpublished).toMatchObject({ url: null, previous_urls: [published.url], slug: 'rail-operator-cuts-night-service' })

    // Changing the slug of an article that is not live moves no address.
    const renamed = await client.patch(`/v1/articles/${article.article_id}`, { slug: 'night-service-cut' })
    expect(renamed.body).toMatchObject({ url: null, previous_urls: [published.url] })

    const republished = await moveTo(article.article_id, 'in-review', 'approved', 'published')
    expect(republished).toMatchObject({ url: addressOf('night-service-cut', article.article_id), previous_urls: [published.url] })

    const backAtFirst = await client.patch(`/v1/articles/${article.article_id}`, { slug: 'rail-operator-cuts-night-service' })
    expect(backAtFirst.body).toMatchObject({ url: published.url, previous_urls: [addressOf('night-service-cut', article.article_id)] })
  })

  it('hand the slug back to the headline as it is now when null is sent', async () => {
    const article = await create({ headline: 'Water utility announces price rise' })
    const published = await moveTo(article.article_id, 'in-review', 'approved', 'published')
    await client.patch(`/v1/articles/${article.article_id}`, { headline: 'Water prices to rise by 4%' })
    const released = await client.patch(`/v1/articles/${article.article_id}`, { slug: null })
    expect(released.body).toMatchObject({ slug: 'water-prices-to-rise-by-4', url: addressOf('water-prices-to-rise-by-4', article.article_id), previous_urls: [published.url] })
    // Stored, so the next headline change does not move it again.
    const renamed = await client.patch(`/v1/articles/${article.article_id}`, { headline: 'Water prices rise' })
    expect(renamed.body.slug).toBe('water-prices-to-rise-by-4')
  })
})

describe('slugs in a bulk import', () => {
  it('are set on new and not-yet-published articles; a live article keeps its address and says how to move it', async () => {
    const first = await client.post('/v1/articles/bulk', {
      articles: [
        { external_id: 'SLUG-1', headline: 'Wire one', slug: 'wire-one-custom' },
        { external_id: 'SLUG-2', headline: 'Wire two' },
      ],
    })
    expect(first.body).toMatchObject({ created: 2, failed: 0 })
    const [one, two] = first.body.results.map((result: { article_id: string }) => result.article_id)
    expect((await client.get(`/v1/articles/${one}`)).body.slug).toBe('wire-one-custom')
    const published = await moveTo(two, 'in-review', 'approved', 'published')

    const again = await client.post('/v1/articles/bulk', {
      articles: [
        { external_id: 'SLUG-1', headline: 'Wire one', slug: 'wire-one-renamed' },
        { external_id: 'SLUG-2', headline: 'Wire two, updated', slug: 'wire-two-moved' },
        { external_id: 'SLUG-2b', headline: 'Unrelated' },
      ],
    })
    expect(again.body).toMatchObject({ created: 1, updated: 1, failed: 1 })
    expect(again.body.results[1]).toMatchObject({ status: 'failed', errors: [{ field: 'slug', message: expect.stringContaining('PATCH') }] })
    expect((await client.get(`/v1/articles/${one}`)).body.slug).toBe('wire-one-renamed')
    // Nothing of the refused item was stored.
    expect((await client.get(`/v1/articles/${two}`)).body).toMatchObject({ headline: 'Wire two', url: published.url, previous_urls: [] })

    // The same slug it already has is no change, so the item goes through.
    const same = await client.post('/v1/articles/bulk', { articles: [{ external_id: 'SLUG-2', headline: 'Wire two, updated', slug: published.slug }] })
    expect(same.body).toMatchObject({ updated: 1, failed: 0 })
  })
})
