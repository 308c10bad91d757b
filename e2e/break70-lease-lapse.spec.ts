import { expect, test, type BrowserContext, type Page } from '@playwright/test'
import { createDraft } from './support/article-drafts.ts'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

// break70: a tab left open with unsaved text while the laptop sleeps (or its heartbeats do not get
// through) loses its edit lease when the lease lapses (3 minutes without a heartbeat), as
// docs/team-editing.md says. A colleague who then opens the story finds nobody editing and starts
// typing: a plain claim of a free lease, no take-over (History records none). The sleeping tab,
// once it looks again, must not tell its editor the colleague "took over" (docs: a take-over is
// what "Take over editing" does, and is recorded in History); nobody did.
//
// The lapse is waited out for real (the page knows its claim's end from the server's answers, so
// rewriting the lease's end in the database left the page's knowledge of it live). Both ways a
// colleague may go on (typing; editing and saving) share one wait: two tabs of the editor, each
// on its own story, sleep at the same time.
test.describe.configure({ timeout: 420_000 })

/** The editor's tab with unsaved text, whose heartbeats then stop getting through (the laptop sleeps). */
async function tabGoingToSleep(editorContext: BrowserContext, headline: string): Promise<{ page: Page; id: string }> {
  const page = await editorContext.newPage()
  const id = await createDraft(page, { headline, body: 'The first paragraph.' })
  await page.getByRole('textbox', { name: 'Body' }).click()
  await page.keyboard.press('Control+End')
  await page.keyboard.press('Enter')
  await page.keyboard.type('Unsaved paragraph typed before the laptop was closed.')
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [id])).length).toBe(1)
  await page.route('**/api/articles/*/lease', (route) => route.abort())
  return { page, id }
}

/** Until the leases run out: 3 minutes after the last heartbeat that got through. */
async function leasesLapsed(ids: string[]): Promise<void> {
  await expect
    .poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = ANY($1) AND expires_at > now()', [ids])).length, { timeout: 200_000, intervals: [5_000] })
    .toBe(0)
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

test('a tab whose lease lapsed overnight does not say a colleague who then opened the story "took over", whether they are typing or edited and saved', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const typing = await tabGoingToSleep(editorContext, `Night shift ${unique()}`)
  const saved = await tabGoingToSleep(editorContext, `Night desk ${unique()}`)
  // The second tab's watch sleeps too, so it sees the colleague's edit only on waking.
  await saved.page.route('**/api/articles/*/watch', (route) => route.abort())
  await leasesLapsed([typing.id, saved.id])

  // A colleague opens the first story and types; the laptop wakes, and the tab looks again.
  await colleagueStartsTyping(adminContext, typing.id)
  await typing.page.unroute('**/api/articles/*/lease')
  await typing.page.bringToFront()
  await expect(typing.page.getByTestId('lease-banner')).toBeVisible({ timeout: 15_000 })
  await expect(typing.page.getByTestId('lease-banner')).toContainText(seedUsers.admin.name)
  await expect(typing.page.getByTestId('lease-banner')).not.toContainText('took over')

  // A colleague edits the second story and saves, letting it go; then the laptop wakes.
  const admin = await colleagueStartsTyping(adminContext, saved.id)
  await admin.getByRole('button', { name: 'Save changes' }).click()
  await expect(admin.getByTestId('save-status')).toContainText('This is now version 2.')
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [saved.id])).length).toBe(0)
  await saved.page.unroute('**/api/articles/*/watch')
  await saved.page.unroute('**/api/articles/*/lease')
  await saved.page.bringToFront()
  // Told the colleague edited it (the change notice), never that they took it over.
  await expect(saved.page.getByText(`${seedUsers.admin.name} edited this article`)).toBeVisible({ timeout: 15_000 })
  await saved.page.waitForTimeout(3000)
  await expect(saved.page.getByText('took over')).toHaveCount(0)
  await editorContext.close()
  await adminContext.close()
})
