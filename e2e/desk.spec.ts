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

test('with the queue stopped, a schedule whose time passed is overdue on the editor’s desk and the article, the admin sees the waiting events, and a writer sees their articles in review', async ({ browser, request }) => {
  const stamp = Date.now().toString(36)
  const headline = `Night tram timetable ${stamp}`
  const reviewHeadline = `Harbour lights ${stamp}`
  const [writer] = await queryE2eDatabase<{ id: string }>('SELECT id FROM users WHERE email = $1', [seedUsers.writer.email])
  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])
  const headers = { Authorization: `Bearer ${token}` }
  const created = await request.post('/v1/articles', { headers, data: { headline, lede: 'Trams run all night from Friday.', status: 'in-review' } })
  expect(created.status()).toBe(201)
  const { article_id: articleId } = (await created.json()) as { article_id: string }
  expect((await request.post(`/v1/articles/${articleId}/transitions`, { headers, data: { to_state: 'approved' } })).status()).toBe(200)
  const scheduled = await request.post(`/v1/articles/${articleId}/transitions`, { headers, data: { to_state: 'published', publish_at: new Date(Date.now() + 3_600_000).toISOString() } })
  expect(scheduled.status()).toBe(200)
  // Its time passes while no queue runs the publication (the e2e server has no Inngest).
  await queryE2eDatabase(`UPDATE articles SET scheduled_publish_at = now() - interval '5 minutes' WHERE id = $1`, [articleId])
  const inReview = await request.post('/v1/articles', { headers, data: { headline: reviewHeadline, author_id: writer!.id, status: 'in-review' } })
  expect(inReview.status()).toBe(201)

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto('/')
  const overdue = editor.getByRole('region', { name: /Overdue: did not go live/ })
  await expect(overdue.getByRole('listitem').filter({ hasText: headline })).toContainText('— overdue. Open it to publish now or reschedule.')
  await expect(overdue.getByTestId('overdue-reason')).toContainText('scheduled publications')
  await expect(overdue.getByTestId('overdue-reason')).toContainText('Publish it now')
  await expect(editor.getByRole('region', { name: /Going live in the next 24 hours/ }).getByRole('link', { name: headline })).toHaveCount(0)
  await editor.screenshot({ path: 'docs/screenshots/desk-overdue.png' })

  await overdue.getByRole('link', { name: headline }).click()
  await expect(editor.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  await expect(editor.getByTestId('scheduled-for')).toContainText('— overdue')
  await expect(editor.getByTestId('scheduled-for')).toContainText('It did not go live at its time. Publish it now, or set a new time.')
  await editor.screenshot({ path: 'docs/screenshots/article-overdue.png' })
  await editorContext.close()

  const adminContext = await signedInContext(browser, 'admin')
  const admin = await adminContext.newPage()
  await admin.goto('/')
  const backlog = admin.getByRole('region', { name: /Needs your attention/ }).getByTestId('outbox-backlog')
  await expect(backlog).toContainText(/\d+ events? (is|are) waiting in the outbox, the oldest for/)
  await expect(backlog).toContainText(/They hold up .*\d+ scheduled publications?/)
  await expect(backlog).toContainText(/\d+ scheduled publications? (is|are) overdue/)
  await admin.screenshot({ path: 'docs/screenshots/desk-admin-backlog.png' })
  await backlog.getByRole('link').click()
  await expect(admin.getByRole('heading', { level: 1, name: 'Waiting events' })).toBeVisible()
  await expect(admin.getByTestId('waiting-events-count')).toContainText(/\d+ events? (is|are) waiting/)
  const row = admin.getByTestId('waiting-events').getByRole('row').filter({ hasText: 'article.publish_scheduled' }).filter({ hasText: headline })
  // Oldest first, a hundred a page: this test's event is on the last page, whatever other specs left waiting.
  const next = admin.getByRole('navigation', { name: 'Waiting event pages' }).getByRole('link', { name: /^Next/ })
  while ((await row.count()) === 0 && (await next.count()) > 0) {
    const shown = await admin.getByTestId('waiting-events-count').textContent()
    await next.click()
    await expect(admin.getByTestId('waiting-events-count')).not.toHaveText(shown ?? '')
  }
  await expect(row).toContainText(`Publishes ${headline}`)
  await admin.screenshot({ path: 'docs/screenshots/waiting-events.png', fullPage: true })
  await adminContext.close()

  const writerContext = await signedInContext(browser, 'writer')
  const writerPage = await writerContext.newPage()
  await writerPage.goto('/')
  await expect(writerPage.getByRole('region', { name: /Your articles in review/ }).getByRole('link', { name: reviewHeadline })).toBeVisible()
  await expect(writerPage.getByRole('region', { name: /Overdue/ })).toHaveCount(0)
  await writerPage.screenshot({ path: 'docs/screenshots/desk-writer-in-review.png' })
  await writerContext.close()
})
