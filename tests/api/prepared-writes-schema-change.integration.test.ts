import { beforeAll, describe, expect, it } from 'vitest'
import { sqlPool } from '../../lib/db/client.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { commitArticleChange } from '../../lib/articles/commit-article-change.ts'
import { writeArticle } from '../../lib/articles/article-write-statement.ts'
import { updateOfReadArticle } from '../../lib/articles/article-writes.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The hot writes run as statements prepared by their text (bd6817a). A prepared statement's
// result type is fixed when it is parsed: after a migration changes the type of a column the
// write returns (a Prisma enum change recreates the type, a timestamp's precision changes…),
// PostgreSQL refuses every later run of it on that connection ("cached plan must not change
// result type", 0A000) until it is prepared again. Before bd6817a these writes were parsed on
// every run and a running instance (MIGRATE_ON_START=false, a rolling deploy) went on writing.

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant()
})

async function writeInTransaction(articleId: string, round: number) {
  const current = await db.article.findUniqueOrThrow({ where: { id: articleId } })
  // The path of a write with an Idempotency-Key, or one that brings an image into view: a transaction (sqlTransaction).
  return commitArticleChange(newsroom.tenant.id, (tx, emit) => writeArticle(tx, emit, newsroom.tenant.id, { ...updateOfReadArticle(current, { tags: [`round-${round}`] }), events: [{ kind: 'article.updated', record: true }] }), {
    oneStatement: false,
  })
}

async function outcomes(count: number, write: (round: number) => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  for (let round = 0; round < count; round++) {
    seen.push(
      await write(round).then(
        () => 'ok',
        (error: Error) => error.message,
      ),
    )
  }
  return seen
}

describe('prepared article writes across a migration that changes a returned column type', () => {
  it('keeps writing, in a transaction and alone, once the column type changed under the running process', async () => {
    const actor = newsroom.actor('editor')
    const article = await createArticle(actor, { headline: 'Before the migration', tags: ['a'] })
    // Prepare the writes on the pool's connections.
    expect(await outcomes(3, (round) => writeInTransaction(article.id, round))).toEqual(['ok', 'ok', 'ok'])
    expect(await outcomes(3, (round) => updateArticle(actor, article.id, { tags: [`alone-${round}`] }))).toEqual(['ok', 'ok', 'ok'])

    // A migration run by the release's migration step while this instance serves.
    await sqlPool.query('ALTER TABLE articles ALTER COLUMN published_at TYPE timestamptz(6)')

    const inTransaction = await outcomes(5, (round) => writeInTransaction(article.id, 10 + round))
    const alone = await outcomes(5, (round) => updateArticle(actor, article.id, { tags: [`after-${round}`] }))
    expect({ inTransaction, alone }).toEqual({ inTransaction: ['ok', 'ok', 'ok', 'ok', 'ok'], alone: ['ok', 'ok', 'ok', 'ok', 'ok'] })
  })
})
