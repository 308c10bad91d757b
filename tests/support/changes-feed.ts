import { expect } from 'vitest'
import type { apiClient } from './api-client.ts'
import { listArticles } from '../../lib/articles/list-articles.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { createTestTenant } from './fixtures.ts'

type Client = ReturnType<typeof apiClient>
export type FeedRow = { article_id: string; version: number; status: string; updated_at: string }

/** Follows next_cursor from `start` until a short page, as a mirror does; returns the rows and the last cursor. */
export async function followFeed(client: Client, query: string, start?: string): Promise<{ rows: FeedRow[]; cursor: string | undefined }> {
  const rows: FeedRow[] = []
  let cursor = start
  for (let page = 0; page < 500; page++) {
    const answer = await client.get(`/v1/articles?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    expect(answer.status, answer.text).toBe(200)
    rows.push(...answer.body.items)
    cursor = answer.body.next_cursor ?? cursor
    if (answer.body.items.length < answer.body.limit) return { rows, cursor }
  }
  throw new Error('The feed never ended.')
}

/**
 * A mirror polls the feed by cursor while `writers` create and edit articles at the same time,
 * and once more after they are done (no wait: the writes were answered, so they have committed).
 * Returns what the mirror holds (article -> version) and how often it was handed each version:
 * the feed's promise is that the mirror ends up with every article at its last version and was
 * never handed the same version of an article twice.
 */
export async function mirrorWhileWriting(client: Client, options: { writers: number; articlesEach: number }) {
  const mirror = new Map<string, number>()
  const handed = new Map<string, number>()
  const take = (rows: FeedRow[]) => {
    for (const row of rows) {
      mirror.set(row.article_id, row.version)
      const key = `${row.article_id}@${row.version}`
      handed.set(key, (handed.get(key) ?? 0) + 1)
    }
  }
  let cursor: string | undefined
  let writing = options.writers
  const writes = Array.from({ length: options.writers }, async (_, writer) => {
    const written: string[] = []
    try {
      for (let i = 0; i < options.articlesEach; i++) {
        const created = await client.post('/v1/articles', { headline: `Written during sync ${writer}.${i}` })
        expect(created.status, created.text).toBe(201)
        written.push(created.body.article_id)
        if (i % 3 === 0 && written.length > 2) expect((await client.patch(`/v1/articles/${written[i - 2]}`, { tags: [`edit-${writer}-${i}`] })).status).toBe(200)
      }
    } finally {
      writing--
    }
  })
  while (writing > 0) {
    const page = await followFeed(client, 'sort=updated_at&limit=7', cursor)
    take(page.rows)
    cursor = page.cursor
  }
  await Promise.all(writes)
  take((await followFeed(client, 'sort=updated_at&limit=7', cursor)).rows)
  return { mirror: Object.fromEntries(mirror), repeated: [...handed].filter(([, times]) => times > 1).map(([key]) => key) }
}

/**
 * A newsroom with `count` articles whose updated_at repeat (the feed's ties), for paging the
 * changes feed by offset deep past deepOffset (lib/articles/changes-feed.ts). Returns the feed as
 * PostgreSQL orders it, counted from the start every time (`counted`), and as the list API serves
 * it to a writer, 20 a page (`feed`).
 */
export async function deepFeedNewsroom(count: number) {
  const newsroom = await createTestTenant()
  const tenantId = newsroom.tenant.id
  await db.article.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      id: createId('art'),
      tenantId,
      headline: `Feed ${i}`,
      authorId: newsroom.users.editor.id,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, (i * 7) % 1_000)),
    })),
  })
  const counted = async (offset: number, limit: number) =>
    (
      await db.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id FROM articles WHERE tenant_id = $1 AND change_xid < articles_change_horizon() ORDER BY change_xid, updated_at, id LIMIT $2 OFFSET $3`,
        tenantId,
        limit,
        offset,
      )
    ).map((row) => row.id)
  const feed = async (offset: number) => (await listArticles(newsroom.actor('writer'), { sort: 'updated_at', limit: 20, offset })).items.map((article) => article.id)
  return { newsroom, tenantId, counted, feed }
}
