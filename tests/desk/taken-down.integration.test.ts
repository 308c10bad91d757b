import { beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { readDesk } from '../../lib/desk/read-desk.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Issue 45, point 7: a writer whose live story is taken down with a note learns it, and why, on
// their desk — not only by finding it among their drafts without the note.

let newsroom: TestTenant
const member = (tenant: TestTenant, role: 'admin' | 'editor' | 'writer') => {
  const actor = tenant.actor(role)
  return { ...actor, user: actor.user! }
}

async function published(headline: string) {
  const writer = member(newsroom, 'writer')
  const editor = member(newsroom, 'editor')
  const article = await createArticle(writer, { headline, status: 'in-review' })
  await transitionArticle(editor, article.id, { to_state: 'approved' })
  await transitionArticle(editor, article.id, { to_state: 'published' })
  return article
}

beforeAll(async () => {
  newsroom = await createTestTenant()
})

describe('the author’s desk after a take-down', () => {
  it('lists a story unpublished or archived while live, newest first, with who did it and their note; not one published again', async () => {
    const editor = member(newsroom, 'editor')
    const unpublished = await published('Mayor’s budget speech')
    await transitionArticle(editor, unpublished.id, { to_state: 'draft', note: 'The figures in paragraph 3 are last year’s.' })
    const archived = await published('Pool reopening date')
    await transitionArticle(member(newsroom, 'admin'), archived.id, { to_state: 'archived', note: 'Legal asked us to pull it.' })
    const republished = await published('Bus lane trial')
    await transitionArticle(editor, republished.id, { to_state: 'draft', note: 'Wrong photo.' })
    await transitionArticle(editor, republished.id, { to_state: 'in-review' })
    await published('Still live: harbour swim')

    const desk = await readDesk(member(newsroom, 'writer'))
    expect(desk.takenDown.items.map((item) => [item.headline, item.status, item.takenDownBy, item.takeDownNote])).toEqual([
      ['Pool reopening date', 'archived', `${newsroom.tenant.slug} admin`, 'Legal asked us to pull it.'],
      ['Mayor’s budget speech', 'draft', expect.any(String), 'The figures in paragraph 3 are last year’s.'],
    ])
    // Not a send-back from review: that list stays what it says.
    expect(desk.returned.items.map((item) => item.id)).not.toContain(unpublished.id)
    // Another member's desk does not show this writer's take-downs.
    expect((await readDesk(editor)).takenDown.items).toEqual([])
  })
})
