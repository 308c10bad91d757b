import { beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { isMove, listArticleHistory } from '../../lib/articles/article-history.ts'
import { approveAndPublish } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// "Approve and publish": two moves in one action, each recorded and each under the workflow's rules.

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant()
})

describe('approveAndPublish', () => {
  it('records both moves in order, with their events, and publishes', async () => {
    const article = await createArticle(newsroom.actor('writer'), { headline: 'Two moves, one click', status: 'in-review' })
    const published = await approveAndPublish(newsroom.actor('editor'), article.id)
    expect(published).toMatchObject({ status: 'published', version: article.version + 2 })
    expect(published.url).toMatch(/^https:\/\//)
    const history = (await listArticleHistory(newsroom.actor('editor'), article.id)).filter(isMove)
    expect(history.map((entry) => `${entry.from_state}>${entry.to_state}`)).toEqual(['in-review>approved', 'approved>published'])
    const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, data: { path: ['article_id'], equals: article.id } }, orderBy: { occurredAt: 'asc' } })
    expect(events.map((event) => event.kind).filter((kind) => kind !== 'article.created').sort()).toEqual(['article.published', 'workflow.transitioned', 'workflow.transitioned'])
  })

  it('refuses a writer, and an article that is not in review, leaving it as it was', async () => {
    const inReview = await createArticle(newsroom.actor('writer'), { headline: 'Not yours to publish', status: 'in-review' })
    await expect(approveAndPublish(newsroom.actor('writer'), inReview.id)).rejects.toMatchObject({ status: 403 })
    const draft = await createArticle(newsroom.actor('editor'), { headline: 'Still a draft' })
    await expect(approveAndPublish(newsroom.actor('editor'), draft.id)).rejects.toMatchObject({ status: 409, code: 'invalid_transition' })
    expect((await db.article.findUniqueOrThrow({ where: { id: inReview.id } })).status).toBe('in_review')
    expect(await listArticleHistory(newsroom.actor('editor'), draft.id)).toEqual([])
  })
})
