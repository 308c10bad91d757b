import { expect, test, type BrowserContext, type Page } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

// break70: a tab left open with unsaved text while the laptop sleeps (or its heartbeats do not get
// through) loses its edit lease when the lease lapses (3 minutes without a heartbeat), as
// docs/team-editing.md says. A colleague who then opens the story finds nobody editing and starts
// typing: a plain claim of a free lease, no take-over (History records none). The sleeping tab,
// once it looks again, must not tell its editor the colleague "took over" (docs: a take-over is
// what "Take over editing" does, and is recorded in History); nobody did.
test.describe.configure({ timeout: 420_000 })

async function createDraft(page: Page, headline: string, body: string): Promise<string> {
  await page.goto('/articles/new')
  await page.getByLabel('Headline').fill(headline)
  await page.getByRole('textbox', { name: 'Body' }).click()
  await page.keyboard.type(body)
  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  const match = /\/articles\/(art_[a-z0-9]+)/.exec(page.url())
  if (!match?.[1]) throw new Error(`Not on an article page: ${page.url()}`)
  return match[1]
}

/** The editor's tab with unsaved text whose lease then lapses: its heartbeats stop getting through, and the lease's end passes. */
async function tabWhoseLeaseLapsed(editorContext: BrowserContext): Promise<{ page: Page; id: string }> {
  const page = await editorContext.newPage()
  const id = await createDraft(page, `Night shift ${unique()}`, 'The first paragraph.')
  await page.getByRole('textbox', { name: 'Body' }).click()
  await page.keyboard.press('Control+End')
  await page.keyboard.press('Enter')
  await page.keyboard.type('Unsaved paragraph typed before the laptop was closed.')
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [id])).length).toBe(1)
  // The laptop sleeps: no heartbeat reaches the server, and the lease runs out (3 minutes after
  // the last one that did; waited out for real, as the page knows its claim's end from the server).
  await page.route('**/api/articles/*/lease', (route) => route.abort())
  await expect
    .poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1 AND expires_at > now()', [id])).length, { timeout: 200_000, intervals: [5_000] })
    .toBe(0)
  return { page, id }
}

async function colleagueStartsTyping(adminContext: BrowserContext, id: string): Promise<Page> {
  const admin = await adminContext.newPage()
  await admin.goto(`/articles/${id}`)
  // The lease lapsed: the colleague is told nobody is editing, and may simply type.
  await expect(admin.getByRole('textbox', { name: 'Body' })).toHaveAttribute('contenteditable', 'true')
  await admin.getByRole('textbox', { name: 'Body' }).click()
  await admin.keyboard.press('Control+End')
  await admin.keyboard.type(' Morning addition.')
  await expect.poll(async () => (await queryE2eDatabase<{ email: string }>('SELECT u.email FROM article_leases l JOIN users u ON u.id = l.holder_id WHERE l.article_id = $1', [id]))[0]?.email).toBe(seedUsers.admin.email)
  return admin
}

test('a tab whose lease lapsed overnight does not say the colleague who then opened the story "took over"', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const { page, id } = await tabWhoseLeaseLapsed(editorContext)
  await colleagueStartsTyping(adminContext, id)

  // The laptop wakes: the tab looks again.
  await page.unroute('**/api/articles/*/lease')
  await page.bringToFront()
  await expect(page.getByTestId('lease-banner')).toBeVisible({ timeout: 15_000 })
  await expect(page.getByTestId('lease-banner')).toContainText(seedUsers.admin.name)
  await expect(page.getByTestId('lease-banner')).not.toContainText('took over')
  await editorContext.close()
  await adminContext.close()
})

test('a tab whose lease lapsed overnight does not say a colleague who edited and saved meanwhile "took over"', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const { page, id } = await tabWhoseLeaseLapsed(editorContext)
  // The tab's watch sleeps too, so it sees the colleague's edit only on waking.
  await page.route('**/api/articles/*/watch', (route) => route.abort())
  const admin = await colleagueStartsTyping(adminContext, id)
  await admin.getByRole('button', { name: 'Save changes' }).click()
  await expect(admin.getByTestId('save-status')).toContainText('This is now version 2.')
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [id])).length).toBe(0)

  // The laptop wakes: both of the tab's timers run again.
  await page.unroute('**/api/articles/*/watch')
  await page.unroute('**/api/articles/*/lease')
  await page.bringToFront()
  // Told the colleague edited it (the change notice), never that they took it over.
  await expect(page.getByText(`${seedUsers.admin.name} edited this article`)).toBeVisible({ timeout: 15_000 })
  await page.waitForTimeout(3000)
  await expect(page.getByText('took over')).toHaveCount(0)
  await editorContext.close()
  await adminContext.close()
})
