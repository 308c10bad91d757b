import { expect, test } from '@playwright/test'
import { createDraft } from './support/article-drafts.ts'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

// break72: an editor has a story open with unsaved text in a tab and in another window. The tab
// goes to sleep (the laptop's lid on a second screen, its heartbeats stop getting through); the
// other window, still awake with its own unsaved text, keeps the editor's lease live (one lease
// per person, held by any of their pages: docs/team-editing.md). A colleague finds the story
// held and takes it over ("Take over editing", recorded in History). When the tab wakes it must
// say the colleague took it over: it said the editor's hold had lapsed, judging by its own claim
// alone, which had ended while it slept though the lease never did.
test.describe.configure({ timeout: 420_000 })

const liveClaims = async (id: string) =>
  Number(
    (
      await queryE2eDatabase<{ live: string }>(
        "SELECT count(*) AS live FROM article_leases l, jsonb_each(l.sessions) claim WHERE l.article_id = $1 AND (claim.value)::bigint > extract(epoch FROM now()) * 1000",
        [id],
      )
    )[0]?.live ?? 0,
  )

test('a tab that slept while the editor’s other window kept the lease says a colleague took it over, not that the hold lapsed', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const tab = await editorContext.newPage()
  const id = await createDraft(tab, { headline: `Harbour lights ${unique()}`, body: 'The first paragraph.' })
  await tab.getByRole('textbox', { name: 'Body' }).click()
  await tab.keyboard.press('Control+End')
  await tab.keyboard.press('Enter')
  await tab.keyboard.type('Unsaved paragraph in the tab that will sleep.')

  const other = await editorContext.newPage()
  await other.goto(`/articles/${id}`)
  await other.getByRole('textbox', { name: 'Body' }).click()
  await other.keyboard.press('Control+End')
  await other.keyboard.type(' Unsaved words in the window that stays awake.')
  await expect.poll(() => liveClaims(id)).toBe(2)

  // The tab sleeps: nothing it sends gets through.
  await tab.route('**/api/articles/*/lease', (route) => route.abort())
  await tab.route('**/api/articles/*/watch', (route) => route.abort())
  // Until the tab's own claim has ended (3 minutes after its last heartbeat): the other window's keeps the lease.
  await expect.poll(() => liveClaims(id), { timeout: 240_000, intervals: [5_000] }).toBe(1)
  expect((await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1 AND expires_at > now()', [id])).length).toBe(1)

  // The colleague finds it held by the editor and takes it over.
  const admin = await adminContext.newPage()
  await admin.goto(`/articles/${id}`)
  await admin.getByTestId('lease-banner').getByRole('button', { name: 'Take over editing' }).click()
  await expect(other.getByTestId('lease-banner')).toContainText(`${seedUsers.admin.name} took over editing this article`)

  // The tab wakes and looks again.
  await tab.unroute('**/api/articles/*/lease')
  await tab.unroute('**/api/articles/*/watch')
  await tab.bringToFront()
  await expect(tab.getByTestId('lease-banner')).toContainText(`${seedUsers.admin.name} took over editing this article`, { timeout: 40_000 })
  await expect(tab.getByTestId('lease-banner')).not.toContainText('lapsed')
  await editorContext.close()
  await adminContext.close()
})
