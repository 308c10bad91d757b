import { beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { getArticle } from '../../lib/articles/get-article.ts'
import { NotFoundError } from '../../lib/errors.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// getArticle reads the articles asked for in one turn of the event loop with one statement per
// newsroom (lib/articles/get-article.ts): each caller must still get exactly its own article.
let alpha: TestTenant
let beta: TestTenant
let alphaIds: string[]
let betaId: string

beforeAll(async () => {
  alpha = await createTestTenant()
  beta = await createTestTenant()
  alphaIds = []
  for (const n of [1, 2, 3]) alphaIds.push((await createArticle(alpha.actor(), { headline: `Alpha ${n}` })).id)
  betaId = (await createArticle(beta.actor(), { headline: 'Beta' })).id
})

describe('reading single articles together', () => {
  it('answers each of many concurrent reads with its own article, repeats included', async () => {
    const asked = [...alphaIds, alphaIds[0]!, alphaIds[2]!]
    const articles = await Promise.all(asked.map((id) => getArticle(alpha.actor(), id)))
    expect(articles.map((article) => article.id)).toEqual(asked)
    expect(articles.map((article) => article.headline)).toEqual(['Alpha 1', 'Alpha 2', 'Alpha 3', 'Alpha 1', 'Alpha 3'])
  })

  it('keeps newsrooms apart within one turn: another newsroom’s id and a missing one are 404s, the rest still read', async () => {
    const results = await Promise.allSettled([
      getArticle(alpha.actor(), alphaIds[0]!),
      getArticle(alpha.actor(), betaId),
      getArticle(beta.actor(), betaId),
      getArticle(alpha.actor(), 'art_missing'),
      getArticle(beta.actor(), alphaIds[1]!),
    ])
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected'])
    expect((results[0] as PromiseFulfilledResult<{ headline: string }>).value.headline).toBe('Alpha 1')
    expect((results[2] as PromiseFulfilledResult<{ headline: string }>).value.headline).toBe('Beta')
    for (const index of [1, 3, 4]) expect((results[index] as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError)
  })
})
