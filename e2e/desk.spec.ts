import { expect, test } from '@playwright/test'
import { createE2eApiToken, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'

// The home page is each member's desk: what waits for them, linked to where it is handled.

test('an editor’s desk lists what a writer just submitted, the article says what changed since; sent back, it is on the writer’s desk', async ({ browser, request }) => {
  const headline = `Ferry timetable changes ${Date.now().toString(36)}`
  const [writer] = await queryE2eDatabase<{ id: string }>('SELECT id FROM users WHERE email = $1', [seedUsers.writer.email])
  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])
  const submitted = await request.post('/v1/articles', {
    headers: { Authorization: `Bearer ${token}` },
    data: { headline, lede: 'New sailings from Monday.', author_id: writer!.id, status: 'in-review' },
  })
  expect(submitted.status()).toBe(201)
  // A change after the submission: the editor deciding on it is shown what changed.
  const { article_id: articleId } = (await submitted.json()) as { article_id: string }
  const edited = await request.patch(`/v1/articles/${articleId}`, { headers: { Authorization: `Bearer ${token}` }, data: { lede: 'New sailings from Tuesday.' } })
  expect(edited.status()).toBe(200)

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto('/')
  await expect(editor.getByRole('heading', { level: 1, name: 'Your desk' })).toBeVisible()
  const waiting = editor.getByRole('region', { name: /Waiting for your decision/ })
  await expect(waiting.getByRole('link', { name: headline })).toBeVisible()
  expect(Number(await waiting.locator('h2 span').textContent())).toBeGreaterThan(0)
  await expect(editor.getByRole('region', { name: /Needs your attention/ })).toHaveCount(0)
  await editor.screenshot({ path: 'docs/screenshots/desk.png' })

  await waiting.getByRole('link', { name: headline }).click()
  await expect(editor.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  const since = editor.getByTestId('changes-since-submission')
  await expect(since).toContainText('Since then: lede (one change')
  await since.getByText('Show what changed').click()
  await expect(since.getByTestId('revision-comparison').locator('del')).toHaveText('Monday')
  await expect(since.getByTestId('revision-comparison').locator('ins')).toHaveText('Tuesday')
  await editor.getByRole('button', { name: 'Send back to draft', exact: true }).click()
  const sendBack = editor.getByRole('dialog', { name: 'Send back to draft' })
  await sendBack.getByLabel(/What needs doing\?/).fill('Say which Tuesday.')
  await sendBack.getByRole('button', { name: 'Send back' }).click()
  await expect(editor.getByTestId('workflow-status')).toContainText('Moved to draft.')
  await editorContext.close()

  const writerContext = await signedInContext(browser, 'writer')
  const writerPage = await writerContext.newPage()
  await writerPage.goto('/')
  const returned = writerPage.getByRole('region', { name: /Back from review/ })
  await expect(returned.getByRole('link', { name: headline })).toBeVisible()
  await expect(returned.getByRole('listitem').filter({ hasText: headline })).toContainText('Sent back by Daily Planet Editor')
  await expect(returned.getByRole('listitem').filter({ hasText: headline }).getByTestId('return-note')).toHaveText(': Say which Tuesday.')
  // A writer does not decide on reviews, so that section is not offered.
  await expect(writerPage.getByRole('region', { name: /Waiting for your decision/ })).toHaveCount(0)
  await writerContext.close()
})

test('an admin’s desk says which integrations need attention', async ({ browser }) => {
  const adminContext = await signedInContext(browser, 'admin')
  const admin = await adminContext.newPage()
  await admin.goto('/')
  const attention = admin.getByRole('region', { name: /Needs your attention/ })
  await expect(attention).toBeVisible()
  await expect(admin.getByRole('region', { name: /Waiting for your decision/ })).toBeVisible()
  await adminContext.close()
})
