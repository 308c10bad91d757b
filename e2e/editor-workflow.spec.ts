import { expect, test, type Page } from '@playwright/test'
import { createE2eApiToken, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { createDraft, move } from './support/article-drafts.ts'

// Journeys through the editors' workflow as people make them, against the seeded Daily Planet.
// Every test writes its own articles under unique headlines, so none depends on another.




async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }))
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth)
}

/** The list shows the previous page while the next loads; wait for the one asked for. */
async function listSettled(page: Page) {
  await expect(page.locator('table[aria-busy="false"], p:text("No articles match these filters.")').first()).toBeVisible()
}

async function storedArticle(id: string) {
  const [row] = await queryE2eDatabase<{ status: string; headline: string; lede: string | null; body: string | null; version: number; scheduled_publish_at: Date | null; slug: string | null; url: string | null; previousUrls: string[] }>(
    'SELECT status, headline, lede, body, version, scheduled_publish_at, slug, url, previous_urls AS "previousUrls" FROM articles WHERE id = $1',
    [id],
  )
  if (!row) throw new Error(`No article ${id}`)
  return row
}

test('a writer submits, an editor approves and publishes; the page, /v1 and the outbox agree', async ({ browser, request }) => {
  const headline = `Harbour reopens after the storm ${unique()}`

  // The writer creates the draft and submits it; approving and publishing are not offered.
  const writerContext = await signedInContext(browser, 'writer')
  const writer = await writerContext.newPage()
  const id = await createDraft(writer, { headline, lede: 'Boats are back.', body: 'The harbour master reopened the quay at dawn.', department: 'Business', tags: 'local, harbour' })
  await expect(writer.getByText('Draft created.')).toBeVisible()
  await expect(writer.getByRole('button', { name: 'Approve' })).toHaveCount(0)
  await move(writer, 'Submit for review', 'Moved to in review.')
  await expect(writer.getByTestId('article-status')).toHaveText('In review')
  await expect(writer.getByRole('button', { name: 'Withdraw to draft' })).toBeVisible()
  await expect(writer.getByRole('button', { name: 'Approve' })).toHaveCount(0)
  await expect(writer.getByRole('button', { name: 'Publish now' })).toHaveCount(0)

  // Going around the UI does not help: the procedure itself refuses, in the domain's words.
  const refused = await writer.request.post('/api/trpc/articles.transition', {
    data: { article_id: id, version: (await storedArticle(id)).version, to_state: 'approved' },
    headers: { 'x-newsroom-portal': '1' },
  })
  expect(refused.status()).toBe(403)
  const refusal = (await refused.json()) as { error: { message: string; data: { code: string; domainCode: string } } }
  expect(refusal.error.data).toMatchObject({ code: 'FORBIDDEN', domainCode: 'forbidden' })
  expect(refusal.error.message).toBe('A writer cannot move an article from in-review to approved; ask an editor.')
  expect((await storedArticle(id)).status).toBe('in-review')
  await writerContext.close()

  // The editor finds it among the articles in review, approves it and publishes it.
  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto('/articles?status=in-review')
  await editor.getByRole('link', { name: headline }).click()
  await expect(editor.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  await move(editor, 'Approve', 'Moved to approved.')
  await move(editor, 'Publish now', 'Published. It is live at https://dailyplanet.example/articles/harbour-reopens-after-the-storm-')

  const publicUrl = editor.getByTestId('public-url')
  await expect(publicUrl).toHaveText(/^https:\/\/dailyplanet\.example\/articles\/harbour-reopens-after-the-storm-/)
  await expect(editor.getByTestId('published-at')).toBeVisible()
  const history = editor.getByTestId('article-history')
  await expect(history.getByRole('row')).toHaveCount(4)
  await expect(history.getByRole('row').nth(1)).toContainText(`${seedUsers.writer.name}Draft → In review`)
  await expect(history.getByRole('row').nth(2)).toContainText(`${seedUsers.editor.name}In review → Approved`)
  await expect(history.getByRole('row').nth(3)).toContainText(`${seedUsers.editor.name}Approved → Published`)
  await expectNoHorizontalScroll(editor)
  await editor.screenshot({ path: 'docs/screenshots/editor.png' })

  // /v1 says the same.
  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read'])
  const api = await request.get(`/v1/articles/${id}`, { headers: { Authorization: `Bearer ${token}` } })
  expect(api.status()).toBe(200)
  const record = (await api.json()) as { status: string; url: string; published_at: string; headline: string }
  expect(record).toMatchObject({ status: 'published', headline, url: await publicUrl.textContent() })
  expect(await editor.getByTestId('published-at').locator('time').getAttribute('datetime')).toBe(record.published_at)
  const listed = await request.get('/v1/articles?status=published&limit=200', { headers: { Authorization: `Bearer ${token}` } })
  expect(((await listed.json()) as { items: { article_id: string }[] }).items.map((item) => item.article_id)).toContain(id)

  // The outbox holds the events of the publication, written with it.
  const events = await queryE2eDatabase<{ kind: string; data: Record<string, unknown> }>(
    "SELECT kind, data FROM events WHERE data->>'article_id' = $1 ORDER BY created_at, id",
    [id],
  )
  const [editorRow] = await queryE2eDatabase<{ id: string }>('SELECT id FROM users WHERE email = $1', [seedUsers.editor.email])
  expect(events.filter((event) => event.kind === 'article.published')).toEqual([
    { kind: 'article.published', data: expect.objectContaining({ article_id: id, status: 'published', url: record.url, published_at: record.published_at }) },
  ])
  expect(events.filter((event) => event.kind === 'workflow.transitioned').map((event) => [event.data.from_state, event.data.to_state])).toEqual([
    ['draft', 'in-review'],
    ['in-review', 'approved'],
    ['approved', 'published'],
  ])
  expect(events.find((event) => event.kind === 'workflow.transitioned' && event.data.to_state === 'published')?.data.actor_id).toBe(editorRow!.id)
  await editorContext.close()
})

test('scheduling takes a New York wall time and stores its UTC instant; cancelling unschedules', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor', { timezoneId: 'America/New_York' })
  const page = await context.newPage()
  const id = await createDraft(page, { headline: `Council budget vote ${unique()}` })
  await move(page, 'Submit for review', 'Moved to in review.')
  await move(page, 'Approve', 'Moved to approved.')

  // A time in the past would publish at once, so the form refuses it and says why.
  const publishAt = page.getByLabel('Publish at')
  await publishAt.fill('2020-01-01T10:00')
  await page.getByRole('button', { name: 'Schedule publication' }).click()
  await expect(page.getByText('Choose a time in the future, or use “Publish now”.')).toBeVisible()
  await expect(publishAt).toBeFocused()
  await expect(publishAt).toHaveAttribute('aria-invalid', 'true')
  expect((await storedArticle(id)).scheduled_publish_at).toBeNull()

  // Summer: New York is UTC−4.
  await publishAt.fill('2031-07-15T09:30')
  await expect(page.getByText('Your time zone: America/New_York. That is Jul 15, 2031, 1:30 PM UTC.')).toBeVisible()
  await page.getByRole('button', { name: 'Schedule publication' }).click()
  // The e2e server has no event queue: the schedule is kept, and the page says it will not run by itself.
  await expect(page.getByTestId('workflow-status')).toHaveText(/^Scheduled for Jul 15, 2031, 9:30 AM EDT\. No event queue \(Inngest\) is configured/)
  await expect(page.getByTestId('scheduled-for')).toHaveText(/^Jul 15, 2031, 9:30 AM EDT \(America\/New_York\) — will not go live by itself/)
  await expect(page.getByTestId('article-status')).toHaveText('Approved, scheduled')
  expect(await storedArticle(id)).toMatchObject({ status: 'approved', scheduled_publish_at: new Date('2031-07-15T13:30:00.000Z') })
  await expect(page.getByTestId('article-history').getByRole('row').last()).toContainText('Scheduled for Jul 15, 2031, 9:30 AM EDT (pending)')

  // Winter: UTC−5.
  await page.getByLabel('Move the publication to').fill('2031-01-15T09:30')
  await page.getByRole('button', { name: 'Reschedule' }).click()
  await expect(page.getByTestId('scheduled-for')).toHaveText(/^Jan 15, 2031, 9:30 AM EST \(America\/New_York\)/)
  expect((await storedArticle(id)).scheduled_publish_at).toEqual(new Date('2031-01-15T14:30:00.000Z'))

  await page.getByRole('button', { name: 'Cancel schedule' }).click()
  await expect(page.getByTestId('workflow-status')).toHaveText('The scheduled publication was cancelled; the article stays approved.')
  await expect(page.getByTestId('scheduled-for')).toHaveCount(0)
  await expect(page.getByTestId('article-status')).toHaveText('Approved')
  expect(await storedArticle(id)).toMatchObject({ status: 'approved', scheduled_publish_at: null })
  await expect(page.getByRole('button', { name: 'Cancel schedule' })).toHaveCount(0)
  await context.close()
})

test('two people edit the same article: the second is told who has it, takes over, and the first keeps their text under a banner naming them', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Rail strike talks ${unique()}`
  const id = await createDraft(editor, { headline, lede: 'First lede.' })

  // The editor starts typing: their editor takes the lease.
  await editor.getByLabel('Lede').fill('The editor’s lede, half written')
  await expect.poll(async () => (await queryE2eDatabase<{ holder_id: string }>('SELECT holder_id FROM article_leases WHERE article_id = $1', [id])).length).toBe(1)

  // The admin opens it: told who is editing and since when, and offered read-only or take over.
  await admin.goto(`/articles/${id}`)
  const banner = admin.getByTestId('lease-banner')
  await expect(banner).toContainText(`${seedUsers.editor.name} is editing this article`)
  await expect(admin.getByLabel('Headline')).toBeDisabled()
  await admin.screenshot({ path: 'docs/screenshots/edit-lease-held.png' })
  await banner.getByRole('button', { name: 'Take over editing' }).click()
  await expect(banner).toBeHidden()
  await expect(admin.getByLabel('Headline')).toBeEnabled()

  // Within one poll the editor's page turns read-only, names the admin, and keeps the typed text.
  const lost = editor.getByTestId('lease-banner')
  await expect(lost).toContainText(`${seedUsers.admin.name} took over editing this article`, { timeout: 5000 })
  await expect(editor.getByLabel('Lede')).toHaveValue('The editor’s lede, half written')
  await expect(editor.getByLabel('What you typed (not saved), to copy')).toHaveValue(/The editor’s lede, half written/)
  await expect(editor.getByRole('button', { name: 'Save changes' })).toBeHidden()
  await editor.screenshot({ path: 'docs/screenshots/edit-lease-taken-over.png' })

  // The admin's save lands; the take-over is in History.
  await admin.getByLabel('Headline').fill(`${headline} (admin)`)
  await admin.getByRole('button', { name: 'Save changes' }).click()
  await expect(admin.getByTestId('save-status')).toHaveText('Saved. This is now version 2.')
  await expect(admin.getByTestId('article-history')).toContainText(`Took over editing from ${seedUsers.editor.name}.`)
  expect(await storedArticle(id)).toMatchObject({ headline: `${headline} (admin)`, lede: 'First lede.', version: 2 })
  await editorContext.close()
  await adminContext.close()
})

test('a change saved in one browser shows in another that has the article open, without reloading', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Ferry timetable ${unique()}`
  const id = await createDraft(editor, { headline, lede: 'Old lede.' })
  await admin.goto(`/articles/${id}`)
  await expect(admin.getByLabel('Lede')).toHaveValue('Old lede.')

  await editor.getByLabel('Lede').fill('New lede from the editor.')
  await editor.getByRole('button', { name: 'Save changes' }).click()
  await expect(editor.getByTestId('save-status')).toHaveText('Saved. This is now version 2.')

  await expect(admin.getByTestId('changed-underneath')).toContainText(`${seedUsers.editor.name} edited this article. This is now version 2.`, { timeout: 5000 })
  await expect(admin.getByLabel('Lede')).toHaveValue('New lede from the editor.')
  await admin.screenshot({ path: 'docs/screenshots/changed-underneath.png' })

  // A move shows too.
  await move(editor, 'Submit for review', 'Moved to in review.')
  await expect(admin.getByTestId('changed-underneath')).toContainText(`${seedUsers.editor.name} submitted this for review. This is now version 3.`, { timeout: 5000 })
  await editorContext.close()
  await adminContext.close()
})

test('a move from a page someone else\'s change outdated is refused with what happened; the page catches up and asking again fits the live article', async ({ browser }) => {
  // Issue 28: an admin whose page still showed "In review" clicked "Send back to draft" after an
  // editor had approved and published, and the story left the site without the confirmation a
  // live article gets.
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Ferry timetable ${unique()}`
  const id = await createDraft(editor, { headline })
  await move(editor, 'Submit for review', 'Moved to in review.')

  // The admin opens it in review, in a page whose watch has not come round yet (a background
  // tab, a slow network: the live awareness would otherwise show the change within seconds);
  // then the editor approves and publishes it.
  await admin.route(/\/api\/articles\/[^/]+\/watch/, (route) => route.abort())
  await admin.goto(`/articles/${id}`)
  await expect(admin.getByTestId('article-status')).toHaveText('In review')
  await editor.getByRole('button', { name: 'Approve and publish' }).click()
  await expect(editor.getByTestId('workflow-status')).toContainText('Approved and published.')
  const live = await storedArticle(id)
  expect(live.status).toBe('published')
  await expect(admin.getByTestId('article-status')).toHaveText('In review')

  // The admin's stale click (sending back asks why first) is refused with what happened since,
  // who did it and when, in the dialog itself, which no longer offers to send it back.
  await admin.getByRole('button', { name: 'Send back to draft' }).click()
  const dialog = admin.getByRole('dialog')
  await dialog.getByLabel(/What needs doing\?/).fill('It needs a second source.')
  await dialog.getByRole('button', { name: 'Send back' }).click()
  await expect(dialog.getByTestId('dialog-changed')).toContainText(`it is now published (version ${live.version}), not in review`)
  await expect(dialog).toContainText(new RegExp(`it was approved and published by ${seedUsers.editor.name} at \\d\\d:\\d\\d UTC`))
  await expect(dialog.getByRole('button', { name: 'Send back', exact: true })).toHaveCount(0)
  expect(await storedArticle(id)).toMatchObject({ status: 'published', version: live.version })

  // The page behind shows the article as it is now, with the moves of a live article.
  await expect(admin.getByTestId('article-status')).toHaveText('Published')

  // Asked again, the question is the live story's: taking it off the site. The note typed is still there, to keep or change.
  await dialog.getByRole('button', { name: 'Ask me again for published' }).click()
  const confirm = admin.getByRole('dialog', { name: 'Take this article off the site?' })
  await expect(confirm).toContainText(`“${headline}” is live at ${live.url!}`)
  await expect(confirm.getByLabel(/Why \(optional\)/)).toHaveValue('It needs a second source.')
  expect((await storedArticle(id)).status).toBe('published')
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  expect(await storedArticle(id)).toMatchObject({ status: 'published', version: live.version })

  await admin.getByRole('button', { name: 'Unpublish' }).click()
  const unpublish = admin.getByRole('dialog', { name: 'Take this article off the site?' })
  await unpublish.getByLabel(/Why \(optional\)/).fill('The bridge is shut again; we hold it until the engineers report.')
  await unpublish.getByRole('button', { name: 'Unpublish' }).click()
  await expect(admin.getByTestId('workflow-status')).toHaveText('Moved to draft.')
  await expect(admin.getByTestId('article-status')).toHaveText('Draft')
  expect((await storedArticle(id)).status).toBe('draft')
  const latestNote = admin.getByTestId('article-notes').getByRole('listitem').first()
  await expect(latestNote).toContainText(`${seedUsers.admin.name}, moving it to draft`)
  await expect(latestNote).toContainText('The bridge is shut again; we hold it until the engineers report.')
  await expect(admin.getByTestId('article-notes')).not.toContainText('It needs a second source.')
  await editorContext.close()
  await adminContext.close()
})

test('a writer opening an editor\'s article is offered no move and told why; going around the page is refused the same way', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  const headline = `Budget leak ${unique()}`
  const id = await createDraft(editor, { headline })
  await editorContext.close()

  const writerContext = await signedInContext(browser, 'writer')
  const writer = await writerContext.newPage()
  await writer.goto(`/articles/${id}`)
  await expect(writer.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  await expect(writer.getByTestId('no-moves')).toHaveText('A writer can move only their own articles; ask an editor or the author to move this one.')
  await expect(writer.getByRole('button', { name: 'Submit for review' })).toHaveCount(0)
  await expect(writer.getByText('A writer can change only their own articles; ask an editor to change this one.')).toBeVisible()

  const refused = await writer.request.post('/api/trpc/articles.transition', {
    data: { article_id: id, version: (await storedArticle(id)).version, to_state: 'in-review' },
    headers: { 'x-newsroom-portal': '1' },
  })
  expect(refused.status()).toBe(403)
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('A writer can move only their own articles; ask an editor or the author to move this one.')
  expect((await storedArticle(id)).status).toBe('draft')
  await writerContext.close()
})

test('a body with scripts and handlers is sanitised on save, the editor is told what went, and nothing runs', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  const hostile =
    '<p>Safe words.</p><img src=x onerror=alert(1)><script>alert(2)</script>' +
    '<a href="javascript:alert(3)">click me</a><svg onload=alert(4)></svg><p style="position:fixed;inset:0">Styled</p>'

  const id = await createDraft(page, { headline: `Hostile body ${unique()}` })
  await page.getByRole('button', { name: 'Edit HTML' }).click()
  await page.getByRole('textbox', { name: 'Body' }).fill(hostile)

  const checkPreview = async () => {
    await page.getByRole('button', { name: 'Show preview' }).click()
    const preview = page.getByTestId('body-preview')
    await expect(preview).toContainText('Safe words.')
    // Images come only from the media library (<figure data-media-id>): a pasted <img> goes.
    await expect(preview.locator('img')).toHaveCount(0)
    expect(await preview.locator('a', { hasText: 'click me' }).getAttribute('href')).toBeNull()
    expect(await preview.locator('script, svg, [onerror], [onload], [style]').count()).toBe(0)
    expect(await page.locator('[onerror], [onload]').count()).toBe(0)
    // Give a broken image time to fire its (removed) error handler.
    await page.waitForTimeout(500)
  }
  await checkPreview()
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByTestId('save-status')).toHaveText(
    'Saved. This is now version 2. The body was cleaned for readers: removed <img>, <script>, javascript: URL in href, <svg>, style attribute.',
  )
  // Sanitised on write (contract): what is stored is what readers and webhooks get.
  expect((await storedArticle(id)).body).toBe('<p>Safe words.</p><a>click me</a><p>Styled</p>')

  // Loading it back into the editor and the preview runs nothing either.
  await page.reload()
  await expect(page.getByRole('textbox', { name: 'Body' })).toContainText('Safe words.')
  await checkPreview()
  expect(dialogs).toEqual([])
  await context.close()
})

test('a new article without a headline: the error is announced and takes the focus', async ({ browser }) => {
  const context = await signedInContext(browser, 'writer')
  const page = await context.newPage()
  await page.goto('/articles/new')
  await page.getByLabel('Tags').fill('x'.repeat(65))
  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByLabel('Headline')).toBeFocused()
  await expect(page.getByLabel('Headline')).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByText('Give the article a headline.')).toBeVisible()
  // The form speaks the portal's words, not the API's ("headline must not be empty.").
  await expect(page.getByText('headline must not be empty.')).toHaveCount(0)
  await expect(page.getByText('Each tag must have 1 to 64 characters.')).toBeVisible()
  await expect(page).toHaveURL(/\/articles\/new$/)
  await context.close()
})

test('the article list filters through a linkable URL and pages', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  await page.goto('/articles')
  await expect(page.getByRole('heading', { level: 1, name: 'Articles' })).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: /^Showing 1–\d+ of \d+ articles\.$/ })).toBeVisible()
  await expectNoHorizontalScroll(page)
  await page.screenshot({ path: 'docs/screenshots/article-list.png' })

  // Published ones: badges, public URLs, and the URL carries the filter.
  await page.getByLabel('Status').selectOption('published')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await expect(page).toHaveURL(/\/articles\?status=published$/)
  await listSettled(page)
  const rows = page.locator('tbody tr')
  await expect(rows.first()).toBeVisible()
  for (const row of await rows.all()) {
    await expect(row.locator('[data-status]')).toHaveText('Published')
    await expect(row.getByRole('link', { name: /^https:\/\/dailyplanet\.example\/articles\// })).toBeVisible()
  }

  // Tag and department combine; a link with filters opens with them filled in.
  await page.goto('/articles?department_id=unknown&tag=explainer&limit=10')
  await expect(page.getByLabel('Tag')).toHaveValue('explainer')
  await expect(page.getByLabel('Per page')).toHaveValue('10')
  await expect(page.getByText('No articles match these filters.')).toBeVisible()
  await page.getByLabel('Department').selectOption({ label: 'Culture' })
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await expect(page).toHaveURL(/department_id=dep_[a-z0-9]+&tag=explainer&limit=10/)
  await listSettled(page)
  await expect(rows.first()).toBeVisible()
  for (const row of await rows.all()) await expect(row.locator('td').nth(2)).toHaveText('Culture')

  // Invalid parameters are named, not fatal.
  await page.goto('/articles?limit=5000&status=drafty')
  await expect(page.getByText('Ignored invalid filters in the address: status, limit.')).toBeVisible()

  // Pages of ten: next, then previous, each its own address.
  await page.goto('/articles?limit=10')
  await expect(page.getByText(/^Showing 1–10 of \d+ articles\.$/)).toBeVisible()
  const firstPage = await rows.first().locator('td').first().textContent()
  await page.getByRole('link', { name: 'Next 10 →' }).click()
  await expect(page).toHaveURL(/limit=10&offset=10$/)
  await expect(page.getByText(/^Showing 11–20 of \d+ articles\.$/)).toBeVisible()
  await expect(rows.first().locator('td').first()).not.toHaveText(firstPage ?? '')
  await page.getByRole('link', { name: '← Previous 10' }).click()
  await expect(page).toHaveURL(/\/articles\?limit=10$/)
  await expect(page.getByText(/^Showing 1–10 of \d+ articles\.$/)).toBeVisible()

  // Published between two days, in the reader's zone, travels as UTC instants.
  await page.getByLabel('Published from').fill('2020-01-01')
  await page.getByLabel('Published to').fill('2020-01-31')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await expect(page).toHaveURL(/published_after=2020-01-01T\d\d%3A00%3A00\.000Z&published_before=2020-02-01T\d\d%3A00%3A00\.000Z/)
  await expect(page.getByLabel('Published from')).toHaveValue('2020-01-01')
  await expect(page.getByLabel('Published to')).toHaveValue('2020-01-31')
  await expect(page.getByText('No articles match these filters.')).toBeVisible()
  await context.close()
})

test('an editor approves and publishes an article in review in one action; the history shows both moves', async ({ browser }) => {
  const headline = `Bridge reopens ahead of schedule ${unique()}`
  const writerContext = await signedInContext(browser, 'writer')
  const writer = await writerContext.newPage()
  const id = await createDraft(writer, { headline, lede: 'Traffic flows again.' })
  // Every move can carry a note, not only a sending back.
  await writer.getByLabel('Note with your move (optional)').fill('Both engineers quoted by name.')
  await move(writer, 'Submit for review', 'Moved to in review.')
  await expect(writer.getByLabel('Note with your move (optional)')).toHaveValue('')
  await expect(writer.getByRole('button', { name: 'Approve and publish' })).toHaveCount(0)
  await writerContext.close()

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto(`/articles/${id}`)
  await editor.getByLabel('Note with your move (optional)').fill('Cleared by the night desk.')
  await editor.getByRole('button', { name: 'Approve and publish' }).click()
  await expect(editor.getByTestId('workflow-status')).toContainText('Approved and published. It is live at https://dailyplanet.example/articles/')
  await expect(editor.getByTestId('article-status')).toHaveText('Published')
  const notes = editor.getByTestId('article-notes').getByRole('listitem')
  await expect(notes).toHaveCount(2)
  await expect(notes.nth(0)).toContainText(`${seedUsers.editor.name}, moving it to published`)
  await expect(notes.nth(0)).toContainText('Cleared by the night desk.')
  await expect(notes.nth(1)).toContainText(`${seedUsers.writer.name}, moving it to in review`)
  await expect(notes.nth(1)).toContainText('Both engineers quoted by name.')
  const history = editor.getByTestId('article-history')
  await expect(history.getByRole('row')).toHaveCount(4)
  await expect(history.getByRole('row').nth(2)).toContainText(`${seedUsers.editor.name}In review → Approved`)
  await expect(history.getByRole('row').nth(3)).toContainText(`${seedUsers.editor.name}Approved → Published`)
  expect((await storedArticle(id)).status).toBe('published')

  // Saving a live article asks first: the change is on the site at once.
  await expect(editor.getByText('This article is live: saving changes it on the site at once.')).toBeVisible()
  await editor.getByLabel('Lede').fill('Traffic flows again, two weeks early.')
  await editor.getByRole('button', { name: 'Save changes' }).click()
  const dialog = editor.getByRole('dialog', { name: 'Change the live article?' })
  await expect(dialog).toBeVisible()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  expect((await storedArticle(id)).lede).toBe('Traffic flows again.')
  await editor.getByRole('button', { name: 'Save changes' }).click()
  await editor.getByRole('dialog', { name: 'Change the live article?' }).getByRole('button', { name: 'Save and update the site' }).click()
  await expect(editor.getByTestId('save-status')).toHaveText('Saved. This is now version 5.')
  expect((await storedArticle(id)).lede).toBe('Traffic flows again, two weeks early.')

  // The address is editable: typed words become a slug, the live page moves, the old address stays as a redirect.
  const oldUrl = (await editor.getByTestId('public-url').textContent())!
  const slug = editor.getByLabel('URL slug')
  await slug.fill('Bridge Reopens Early')
  await slug.blur()
  await expect(slug).toHaveValue('bridge-reopens-early')
  await editor.getByRole('button', { name: 'Save changes' }).click()
  const moving = editor.getByRole('dialog', { name: 'Change the live article?' })
  await expect(moving.getByTestId('address-move')).toContainText('“bridge-reopens-early”')
  await moving.getByRole('button', { name: 'Save and update the site' }).click()
  await expect(editor.getByTestId('save-status')).toHaveText('Saved. This is now version 6.')
  await expect(editor.getByTestId('public-url')).toContainText('/articles/bridge-reopens-early-')
  await expect(editor.getByTestId('previous-urls')).toHaveText(oldUrl)
  expect(await storedArticle(id)).toMatchObject({ slug: 'bridge-reopens-early', previousUrls: [oldUrl] })
  await editorContext.close()
})

test('an editor sends a story back with a note; the author sees who and why on their desk and beside the article', async ({ browser }) => {
  const writerContext = await signedInContext(browser, 'writer')
  const editorContext = await signedInContext(browser, 'editor')
  const writer = await writerContext.newPage()
  const editor = await editorContext.newPage()
  const headline = `Bridge closure ${unique()}`
  const id = await createDraft(writer, { headline, lede: 'One source.' })
  await move(writer, 'Submit for review', 'Moved to in review.')

  await editor.goto(`/articles/${id}`)
  await editor.getByRole('button', { name: 'Send back to draft', exact: true }).click()
  const dialog = editor.getByRole('dialog', { name: 'Send back to draft' })
  await dialog.getByRole('button', { name: 'Send back' }).click()
  await expect(dialog.getByRole('alert')).toHaveText('Say what needs doing: the author sees this note.')
  await dialog.getByLabel(/What needs doing\?/).fill('The second source is missing.')
  // Once the note is written, the error that asked for it is gone.
  await expect(dialog.getByRole('alert')).toHaveCount(0)
  await editor.screenshot({ path: 'docs/screenshots/send-back-note.png' })
  await dialog.getByRole('button', { name: 'Send back' }).click()
  await expect(editor.getByTestId('workflow-status')).toHaveText('Moved to draft.')
  expect((await storedArticle(id)).status).toBe('draft')

  await writer.goto('/')
  const returned = writer.getByRole('region', { name: /Back from review/ }).getByRole('listitem').filter({ hasText: headline })
  await expect(returned).toContainText(`Sent back by ${seedUsers.editor.name}`)
  await expect(returned.getByTestId('return-note')).toHaveText(': The second source is missing.')
  await writer.screenshot({ path: 'docs/screenshots/desk-sent-back.png' })
  await returned.getByRole('link', { name: headline }).click()
  await expect(writer.getByTestId('article-notes')).toContainText(`Sent back by ${seedUsers.editor.name}`)
  await expect(writer.getByTestId('article-notes')).toContainText('The second source is missing.')
  await expect(writer.getByTestId('article-history')).toContainText('The second source is missing.')
  await writerContext.close()
  await editorContext.close()
})

test('a save that meets a newer version takes what only they changed and asks, word by word and with nothing preset, about what both changed', async ({ browser, request }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  const headline = `Harbour vote ${unique()}`
  const id = await createDraft(editor, { headline, lede: 'The council meets on Monday.' })
  await editor.getByLabel('Lede').fill('The council meets on Tuesday evening.')

  // An integration writes meanwhile, over the editor's lease (override_lock is recorded).
  const token = await createE2eApiToken('daily-planet', seedUsers.admin.email, ['articles:write'], `merge ${unique()}`)
  const patched = await request.patch(`/v1/articles/${id}`, { headers: { Authorization: `Bearer ${token}` }, data: { headline: `${headline}: result due`, lede: 'The council meets on Monday at noon.', override_lock: true } })
  expect(patched.status()).toBe(200)
  await expect(editor.getByTestId('changed-underneath')).toContainText(`${seedUsers.admin.name} edited this article. This is now version 2`, { timeout: 5000 })
  await expect(editor.getByLabel('Lede')).toHaveValue('The council meets on Tuesday evening.')

  await editor.getByRole('button', { name: 'Save changes' }).click()
  const merge = editor.getByTestId('merge-changes')
  await expect(merge).toBeVisible()
  // Only the lede was changed by both: the headline (theirs alone) is taken without a question.
  await expect(merge.getByTestId('merge-settled')).toContainText('Headline (theirs)')
  await expect(merge.getByRole('group')).toHaveCount(1)
  // Struck: only in what was typed; underlined: only in theirs.
  await expect(merge.getByTestId('merge-diff-lede').locator('del').first()).toHaveText('Tuesday')
  await expect(merge.getByTestId('merge-diff-lede').locator('ins').first()).toHaveText('Monday')
  // Nothing is chosen in advance.
  await expect(merge.getByRole('button', { name: 'Use these choices' })).toBeDisabled()
  await merge.getByRole('group', { name: 'Lede' }).getByLabel('Keep my change').check()
  await merge.getByRole('button', { name: 'Use these choices' }).click()
  await expect(editor.getByLabel('Headline')).toHaveValue(`${headline}: result due`)
  await expect(editor.getByLabel('Lede')).toHaveValue('The council meets on Tuesday evening.')
  await editor.getByRole('button', { name: 'Save changes' }).click()
  await expect(editor.getByTestId('save-status')).toHaveText('Saved. This is now version 3.')
  expect(await storedArticle(id)).toMatchObject({ headline: `${headline}: result due`, lede: 'The council meets on Tuesday evening.', version: 3 })
  await editorContext.close()
})

test('a preview link opens the draft in a fresh browser with no session, and stops when revoked', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  const headline = `Preview me ${unique()}`
  const id = await createDraft(editor, { headline, lede: 'Not live yet.' })
  await editor.getByRole('button', { name: 'Create a preview link' }).click()
  const link = editor.getByTestId('preview-link').getByRole('link')
  await expect(link).toHaveAttribute('href', /^https:\/\/dailyplanet\.example\/preview\?token=nrp_/)
  await expect(editor.getByTestId('live-preview-links')).toContainText(`By ${seedUsers.editor.name}`)
  await editor.screenshot({ path: 'docs/screenshots/preview-links.png' })
  const token = new URL((await link.getAttribute('href'))!).searchParams.get('token')!

  // The newsroom's site exchanges the token with no key and no session.
  const fresh = await browser.newContext()
  const site = await fresh.newPage()
  const answer = await site.goto(`/v1/preview/${token}`)
  expect(answer?.status()).toBe(200)
  expect(answer?.headers()['x-robots-tag']).toBe('noindex')
  expect(await answer?.json()).toMatchObject({ article_id: id, headline, lede: 'Not live yet.', status: 'draft' })

  await editor.getByTestId('live-preview-links').getByRole('button', { name: 'Revoke' }).click()
  // Revoking asks first, saying what a reader of the link will see.
  const revokeDialog = editor.getByRole('dialog', { name: 'Revoke this preview link?' })
  await expect(revokeDialog).toContainText('Anyone who opens it from now on sees “not found” instead of this draft.')
  await revokeDialog.getByRole('button', { name: 'Revoke link' }).click()
  await expect(editor.getByTestId('live-preview-links')).toHaveCount(0)
  expect((await site.goto(`/v1/preview/${token}`))?.status()).toBe(404)
  await fresh.close()
  await editorContext.close()
})
