import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { readDesk } from '../../lib/desk/read-desk.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Issue 29: an editor who sent a story back could not say why. A move now carries a note, and
// notes and comments form the article's thread; the author sees the reason on their desk.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let editor: ReturnType<typeof apiClient>
let writer: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
  writer = apiClient(server.url, await newsroom.token(['articles:read'], 'writer'))
})
afterAll(() => server.close())

async function writersDraft(headline: string): Promise<string> {
  const created = await editor.post('/v1/articles', { headline, author_id: newsroom.users.writer.id, status: 'in-review' })
  expect(created.status).toBe(201)
  return created.body.article_id
}

describe('a note with a move', () => {
  it('is stored with the move, listed in the thread with the move it came with, shown in History and on the author’s desk', async () => {
    const id = await writersDraft('Bridge closure')
    const back = await editor.post(`/v1/articles/${id}/transitions`, { to_state: 'draft', note: 'The second source is missing.' })
    expect(back.status).toBe(200)

    const notes = await editor.get(`/v1/articles/${id}/notes`)
    expect(notes.status).toBe(200)
    expect(notes.body.items).toEqual([
      expect.objectContaining({ kind: 'move', body: 'The second source is missing.', author: { id: newsroom.users.editor.id, name: `${newsroom.tenant.slug} editor` }, move: { from_state: 'in-review', to_state: 'draft' } }),
    ])
    // A writer's read-only key reads the thread too.
    expect((await writer.get(`/v1/articles/${id}/notes`)).body.total).toBe(1)

    const desk = await readDesk(newsroom.actor('writer') as never)
    expect(desk.returned.items.find((item) => item.id === id)).toMatchObject({ returnedBy: `${newsroom.tenant.slug} editor`, returnNote: 'The second source is missing.' })
  })

  it('is refused with the move when it is empty once markup is removed, and nothing moves', async () => {
    const id = await writersDraft('Empty note')
    const refused = await editor.post(`/v1/articles/${id}/transitions`, { to_state: 'draft', note: '<b> </b>' })
    expect(refused.status).toBe(422)
    expect(refused.body.errors).toEqual([{ field: 'note', message: 'note must not be empty (markup is removed: a note is plain text).' }])
    expect((await db.article.findUniqueOrThrow({ where: { id } })).status).toBe('in_review')
  })
})

describe('comments', () => {
  it('are plain text: markup and control characters are removed, line breaks kept', async () => {
    const id = await writersDraft('Sanitised')
    const posted = await editor.post(`/v1/articles/${id}/notes`, { body: '  <script>alert(1)</script>Check <a href="javascript:x">the</a> quote\r\nplease\u0007  ' })
    expect(posted.status).toBe(201)
    expect(posted.body).toMatchObject({ kind: 'comment', body: 'alert(1)Check the quote\nplease', move: null })
    expect((await db.articleNote.findUniqueOrThrow({ where: { id: posted.body.note_id } })).body).toBe('alert(1)Check the quote\nplease')
    // Comparisons with < and > that are not tags stay.
    expect((await editor.post(`/v1/articles/${id}/notes`, { body: 'turnout < 40% and > 30%' })).body.body).toBe('turnout < 40% and > 30%')
    expect((await editor.post(`/v1/articles/${id}/notes`, { body: 'x'.repeat(2001) })).status).toBe(422)
    expect((await editor.post(`/v1/articles/${id}/notes`, { body: 'hi', html: true })).status).toBe(422)
  })

  it('page newest first by offset and by cursor, without repeats or gaps', async () => {
    const id = await writersDraft('Busy thread')
    for (let i = 0; i < 25; i++) expect((await editor.post(`/v1/articles/${id}/notes`, { body: `note ${i}` })).status).toBe(201)
    const first = await editor.get(`/v1/articles/${id}/notes?limit=10`)
    expect(first.body).toMatchObject({ total: 25, limit: 10, offset: 0, next_offset: 10 })
    expect(first.body.items[0].body).toBe('note 24')
    const seen: string[] = first.body.items.map((note: { body: string }) => note.body)
    let cursor = first.body.next_cursor as string | null
    while (cursor) {
      const page = await editor.get(`/v1/articles/${id}/notes?limit=10&cursor=${encodeURIComponent(cursor)}`)
      expect(page.status).toBe(200)
      seen.push(...page.body.items.map((note: { body: string }) => note.body))
      cursor = page.body.next_cursor
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `note ${24 - i}`))
    const byOffset = await editor.get(`/v1/articles/${id}/notes?limit=10&offset=20`)
    expect(byOffset.body.items.map((note: { body: string }) => note.body)).toEqual(seen.slice(20))
    // Another article's cursor is refused.
    const other = await writersDraft('Other thread')
    expect((await editor.get(`/v1/articles/${other}/notes?cursor=${encodeURIComponent(first.body.next_cursor)}`)).status).toBe(422)
  })

  it('need articles:write to post, and another newsroom’s article is a 404', async () => {
    const id = await writersDraft('Scopes')
    expect((await writer.post(`/v1/articles/${id}/notes`, { body: 'hello' })).status).toBe(403)
    const other = await createTestTenant()
    const foreign = (await db.article.create({ data: { id: createId('art'), tenantId: other.tenant.id, headline: 'Elsewhere', authorId: other.users.editor.id } })).id
    expect((await editor.get(`/v1/articles/${foreign}/notes`)).status).toBe(404)
    expect((await editor.post(`/v1/articles/${foreign}/notes`, { body: 'hello' })).status).toBe(404)
    expect(await db.articleNote.count({ where: { articleId: foreign } })).toBe(0)
  })
})
