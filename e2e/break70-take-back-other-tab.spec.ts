import { expect, test } from '@playwright/test'
import { createDraft } from './support/article-drafts.ts'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

// break70: a colleague takes the article over from an editor's tab A (unsaved text, now read-only,
// "took over"). The editor opens it in another tab B and takes it back there. The lease is the
// editor's again (one lease per person, held by any of their tabs: docs/team-editing.md), and the
// colleague's page turns read-only; yet tab A still says the colleague is editing ("read-only
// while they edit") and keeps its unsaved text locked, because its poll only ever looks for the
// lease going free or passing to someone other than the editor.
test.describe.configure({ timeout: 180_000 })


const holder = async (id: string) => (await queryE2eDatabase<{ email: string }>('SELECT u.email FROM article_leases l JOIN users u ON u.id = l.holder_id WHERE l.article_id = $1 AND l.expires_at > now()', [id]))[0]?.email

test('an editor who takes the article back in another tab is not told in the first tab that the colleague is still editing', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const a = await editorContext.newPage()
  const id = await createDraft(a, { headline: `Tide tables ${unique()}`, body: 'The first paragraph.' })
  await a.getByRole('textbox', { name: 'Body' }).click()
  await a.keyboard.press('Control+End')
  await a.keyboard.press('Enter')
  await a.keyboard.type('Unsaved paragraph in tab A.')
  await expect.poll(() => holder(id)).toBe(seedUsers.editor.email)

  // The colleague takes it over: tab A turns read-only and says so.
  const admin = await adminContext.newPage()
  await admin.goto(`/articles/${id}`)
  await admin.getByTestId('lease-banner').getByRole('button', { name: 'Take over editing' }).click()
  await expect.poll(() => holder(id)).toBe(seedUsers.admin.email)
  await expect(a.getByTestId('lease-banner')).toContainText(`${seedUsers.admin.name} took over editing this article`)

  // The editor takes it back in a second tab.
  const b = await editorContext.newPage()
  await b.goto(`/articles/${id}`)
  await b.getByTestId('lease-banner').getByRole('button', { name: 'Take over editing' }).click()
  await expect.poll(() => holder(id)).toBe(seedUsers.editor.email)
  await expect(admin.getByTestId('lease-banner')).toContainText(`${seedUsers.editor.name} took over editing this article`)

  // Tab A: the colleague is not editing any more; the lease is this editor's.
  await a.bringToFront()
  await a.waitForTimeout(8_000)
  await expect(a.getByTestId('lease-banner').filter({ hasText: 'while they edit' })).toHaveCount(0)
  await expect(a.getByRole('textbox', { name: 'Body' })).toHaveAttribute('contenteditable', 'true')
  await editorContext.close()
  await adminContext.close()
})
