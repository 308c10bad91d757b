import { expect, test } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { createDraft, move } from './support/article-drafts.ts'

// Issue 45, tried by a hurried editor: a save that meets a newer version is merged and saved
// again by itself when the two sides changed different fields. That second save must answer the
// question the article now asks, as every confirmation does: a story a colleague published
// meanwhile is asked "Change the live article?", never changed on the site silently.

test.describe.configure({ timeout: 180_000 })



async function stored(id: string) {
  const [row] = await queryE2eDatabase<{ status: string; headline: string; lede: string | null; version: number }>('SELECT status, headline, lede, version FROM articles WHERE id = $1', [id])
  if (!row) throw new Error(`No article ${id}`)
  return row
}

test('a save merged with a version a colleague published meanwhile asks "Change the live article?" before it changes the site', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Tram depot ${unique()}`
  const id = await createDraft(editor, { headline, lede: 'The depot opens in spring.' })
  await move(editor, 'Submit for review', 'Moved to in review.')
  await move(editor, 'Approve', 'Moved to approved.')

  // The editor's page has not heard yet (its watch has not come round: a slow network, a tab
  // just brought back) when the admin publishes the approved story.
  await editor.route(/\/api\/articles\/[^/]+\/watch/, (route) => route.abort())
  await editor.reload()
  await expect(editor.getByTestId('article-status')).toHaveText('Approved')
  await admin.goto(`/articles/${id}`)
  await move(admin, 'Publish now', 'Published.')
  const published = await stored(id)
  expect(published.status).toBe('published')

  // The editor changes the lede of what their page still shows as approved, and saves: nothing
  // is asked, since as far as the page knows the story is not live.
  await expect(editor.getByTestId('article-status')).toHaveText('Approved')
  await editor.getByLabel('Lede').fill('The depot opens in spring, a year late.')
  await editor.getByRole('button', { name: 'Save changes' }).click()

  // The save meets the published version; the merge is clean (only the editor changed the
  // lede), but the story is live now: the site is not changed until the editor says so.
  const confirm = editor.getByRole('dialog', { name: 'Change the live article?' })
  await expect(confirm).toBeVisible({ timeout: 15_000 })
  await expect(confirm).toContainText(`“${headline}” is published`)
  expect(await stored(id)).toMatchObject({ status: 'published', version: published.version, lede: 'The depot opens in spring.' })

  // Cancelling keeps what was typed, unsaved, on the published version.
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(editor.getByLabel('Lede')).toHaveValue('The depot opens in spring, a year late.')
  expect(await stored(id)).toMatchObject({ version: published.version, lede: 'The depot opens in spring.' })

  // Saving again and confirming updates the live story.
  await editor.getByRole('button', { name: 'Save changes' }).click()
  const again = editor.getByRole('dialog', { name: 'Change the live article?' })
  await again.getByRole('button', { name: 'Save and update the site' }).click()
  await expect(editor.getByTestId('save-status')).toContainText('Saved')
  expect(await stored(id)).toMatchObject({ status: 'published', lede: 'The depot opens in spring, a year late.' })
  await editorContext.close()
  await adminContext.close()
})
