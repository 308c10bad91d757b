import { expect, test } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { createDraft } from './support/article-drafts.ts'

test.describe.configure({ timeout: 180_000 })
const live = { timeout: 8000 }


async function stored(id: string) {
  const [row] = await queryE2eDatabase<{ headline: string; body: string | null; version: number }>('SELECT headline, body, version FROM articles WHERE id = $1', [id])
  if (!row) throw new Error(`No article ${id}`)
  return row
}

test('one editor, two tabs: a save in one tab is announced in the other, whose typed paragraph is kept and saved beside it', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor')
  const a = await context.newPage()
  const headline = `Ferry timetable ${unique()}`
  const id = await createDraft(a, { headline, body: ['The first paragraph.', 'The second paragraph.'] })
  const b = await context.newPage()
  await b.goto(`/articles/${id}`)
  await expect(b.getByRole('heading', { level: 1, name: headline })).toBeVisible()

  // Tab B: a new paragraph at the end, not saved.
  const bodyB = b.getByRole('textbox', { name: 'Body' })
  await bodyB.click()
  await b.keyboard.press('Control+End')
  await b.keyboard.press('Enter')
  await b.keyboard.type('A paragraph typed in tab B.')
  await expect(bodyB).toContainText('A paragraph typed in tab B.')

  // Tab A: the headline changed and saved.
  await a.bringToFront()
  await a.getByLabel('Headline').fill(`${headline}, revised`)
  await a.getByRole('button', { name: 'Save changes' }).click()
  await expect(a.getByTestId('save-status')).toContainText('Saved. This is now version 2.')

  // Tab B is told the story was saved elsewhere (version 2), and keeps what was typed. (Today tab B
  // says nothing: its heading and version change to tab A's while its Headline field keeps the old
  // headline, as the change is the viewer's own.)
  await b.bringToFront()
  await expect(b.getByTestId('article-version')).toHaveText('2', live)
  await expect.soft(b.getByRole('status').filter({ hasText: /version 2/ })).toBeVisible(live)
  await expect(bodyB).toContainText('A paragraph typed in tab B.')

  // Saving tab B keeps both.
  await b.getByRole('button', { name: 'Save changes' }).click()
  await expect(b.getByTestId('save-status')).toContainText('Saved. This is now version 3.', live)
  const saved = await stored(id)
  expect(saved.headline).toBe(`${headline}, revised`)
  expect(saved.body).toContain('The second paragraph.')
  expect(saved.body).toContain('A paragraph typed in tab B.')
  await context.close()
})

test('one editor, two tabs: both edit different paragraphs of the body, neither paragraph is lost', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor')
  const a = await context.newPage()
  const headline = `Bridge repairs ${unique()}`
  const id = await createDraft(a, { headline, body: ['Alpha paragraph.', 'Beta paragraph.', 'Gamma paragraph.'] })
  const b = await context.newPage()
  await b.goto(`/articles/${id}`)
  await expect(b.getByRole('heading', { level: 1, name: headline })).toBeVisible()

  const bodyB = b.getByRole('textbox', { name: 'Body' })
  await bodyB.getByText('Gamma paragraph.').click()
  await b.keyboard.press('End')
  await b.keyboard.type(' Gamma edited in B.')
  await expect(bodyB).toContainText('Gamma edited in B.')

  await a.bringToFront()
  const bodyA = a.getByRole('textbox', { name: 'Body' })
  await bodyA.getByText('Alpha paragraph.').click()
  await a.keyboard.press('End')
  await a.keyboard.type(' Alpha edited in A.')
  await a.getByRole('button', { name: 'Save changes' }).click()
  await expect(a.getByTestId('save-status')).toContainText('Saved. This is now version 2.')

  await b.bringToFront()
  await b.waitForTimeout(3000)
  await expect(bodyB).toContainText('Gamma edited in B.')
  await b.getByRole('button', { name: 'Save changes' }).click()
  await expect(b.getByTestId('save-status')).toContainText('Saved. This is now version 3.', live)
  const saved = await stored(id)
  expect(saved.body).toContain('Alpha paragraph. Alpha edited in A.')
  expect(saved.body).toContain('Gamma paragraph. Gamma edited in B.')
  expect(saved.body).toContain('Beta paragraph.')
  await context.close()
})
