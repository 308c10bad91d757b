import { expect, test } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { createDraft } from './support/article-drafts.ts'

test.describe.configure({ timeout: 180_000 })


test('an editor with unsaved text in one tab still shows as editing to a colleague after saving the other tab', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const a = await editorContext.newPage()
  const headline = `Harbour lights ${unique()}`
  const id = await createDraft(a, { headline, body: 'The first paragraph.' })
  const b = await editorContext.newPage()
  await b.goto(`/articles/${id}`)
  await expect(b.getByRole('heading', { level: 1, name: headline })).toBeVisible()

  // Tab B: unsaved work (the lease is the editor's).
  await b.getByRole('textbox', { name: 'Body' }).click()
  await b.keyboard.press('Control+End')
  await b.keyboard.press('Enter')
  await b.keyboard.type('Unsaved paragraph in tab B.')
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [id])).length).toBe(1)

  // Tab A: a headline fix, saved.
  await a.bringToFront()
  await a.getByLabel('Headline').fill(`${headline}, fixed`)
  await a.getByRole('button', { name: 'Save changes' }).click()
  await expect(a.getByTestId('save-status')).toContainText('Saved. This is now version 2.')
  await a.waitForTimeout(1000)

  // A colleague opens the story: the editor still has unsaved work in tab B.
  const admin = await adminContext.newPage()
  await admin.goto(`/articles/${id}`)
  await expect.soft(admin.getByTestId('lease-banner')).toContainText(`${seedUsers.editor.name} is editing this article`)

  // Told nothing, the colleague starts typing (and takes the free lease) ...
  const adminBody = admin.getByRole('textbox', { name: 'Body' })
  if ((await adminBody.getAttribute('contenteditable')) === 'true') {
    await adminBody.click()
    await admin.keyboard.press('Control+End')
    await admin.keyboard.type(' Admin addition.')
    await expect.poll(async () => (await queryE2eDatabase<{ email: string }>('SELECT u.email FROM article_leases l JOIN users u ON u.id = l.holder_id WHERE l.article_id = $1', [id]))[0]?.email).toBe(seedUsers.admin.email)
  }

  // ... and tab B, still typing, is told the colleague "took over" and turns read-only: nobody took anything over.
  await b.bringToFront()
  await b.waitForTimeout(4000)
  // (No banner at all is right too: tab B still holds the lease, so there is nothing to tell it.)
  await expect(b.getByTestId('lease-banner').filter({ hasText: 'took over' })).toHaveCount(0)
  await expect(b.getByRole('textbox', { name: 'Body' })).toHaveAttribute('contenteditable', 'true')
  await editorContext.close()
  await adminContext.close()
})
