import { beforeAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import { db } from '../../lib/db/client.ts'
import { toArticleRecord } from '../../lib/articles/article-record.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { PreconditionFailedError } from '../../lib/errors.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The hot writes (create, PATCH, a move) run their article statement, and the read before a
// change, as statements prepared by their text: after five runs on a connection PostgreSQL may
// keep one generic plan for every value. Each write must still change its own article, from the
// version it read, in its own newsroom, and carry its own record in its event.

let newsrooms: TestTenant[]

beforeAll(async () => {
  newsrooms = [await createTestTenant(), await createTestTenant()]
})

async function eventRecord(articleId: string, kind: string) {
  const events = await db.event.findMany({ where: { kind, data: { path: ['article_id'], equals: articleId } }, orderBy: { createdAt: 'desc' }, take: 1 })
  return events[0]?.data
}

describe('article writes run as prepared statements', () => {
  it('create, change and move each article of two newsrooms, forty times over, from the version each read', async () => {
    const queries = vi.spyOn(pg.Client.prototype, 'query')
    for (let round = 0; round < 20; round++) {
      for (const newsroom of newsrooms) {
        const actor = newsroom.actor('editor')
        const created = await createArticle(actor, { headline: `Prepared ${round}`, lede: `Round ${round}`, body: `<p>Round ${round}.</p>`, tags: [`round-${round}`] })
        expect(created.tenantId).toBe(newsroom.tenant.id)
        expect(await eventRecord(created.id, 'article.created')).toEqual(toArticleRecord(created))

        const updated = await updateArticle(actor, created.id, { tags: [`round-${round}`, 'changed'] }, { expectedVersion: created.version })
        expect(updated.id).toBe(created.id)
        expect(updated.version).toBe(created.version + 1)
        expect(updated.tags).toEqual([`round-${round}`, 'changed'])
        expect(await eventRecord(created.id, 'article.updated')).toEqual(toArticleRecord(updated))

        // The version read before the change is the one a pin is held to, on a kept plan as on a new one.
        await expect(updateArticle(actor, created.id, { tags: ['stale'] }, { expectedVersion: created.version })).rejects.toBeInstanceOf(PreconditionFailedError)

        const { article: moved } = await transitionArticle(actor, created.id, { to_state: 'in-review' }, { expectedVersion: updated.version })
        expect(moved.status).toBe('in_review')
        expect(moved.version).toBe(updated.version + 1)
        expect(moved.tags).toEqual([`round-${round}`, 'changed'])
        const stored = await db.article.findUniqueOrThrow({ where: { id: created.id } })
        expect(stored.tenantId).toBe(newsroom.tenant.id)
        expect(stored.version).toBe(moved.version)
        expect(await db.articleTransition.count({ where: { articleId: created.id, toState: 'in_review' } })).toBe(1)
      }
    }
    // The writes' statements and the read before a change went as prepared statements.
    const prepared = queries.mock.calls.map(([config]) => config as unknown as { name?: string; text?: string }).filter((config) => typeof config === 'object' && config?.name)
    queries.mockRestore()
    expect(prepared.filter((config) => config.text!.includes('WITH written AS') && config.text!.includes('INSERT INTO articles')).length).toBe(40)
    expect(prepared.filter((config) => config.text!.includes('WITH written AS') && config.text!.includes('UPDATE articles')).length).toBe(80)
    expect(prepared.filter((config) => config.text!.includes('AS lock FROM articles')).length).toBeGreaterThanOrEqual(120)
  })
})
