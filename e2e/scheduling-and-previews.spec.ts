import { expect, test } from '@playwright/test'
import { createE2eApiToken, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'

// Issue 45, points 5 and 6. The e2e server runs with no event queue (no Inngest), as a trial does.

const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`

test('with no event queue, the schedule form warns before the time and the desk says the story will not go live by itself, never “Going live”', async ({ browser, request }) => {
  const headline = `Lifeboat station open day ${stamp()}`
  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])
  const headers = { Authorization: `Bearer ${token}` }
  const created = await request.post('/v1/articles', { headers, data: { headline, lede: 'Crews show the new boat on Saturday.', status: 'in-review' } })
  expect(created.status()).toBe(201)
  const { article_id: articleId } = (await created.json()) as { article_id: string }
  expect((await request.post(`/v1/articles/${articleId}/transitions`, { headers, data: { to_state: 'approved' } })).status()).toBe(200)

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto(`/articles/${articleId}`)
  await expect(editor.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  const schedule = editor.getByRole('form', { name: 'Schedule publication' })
  // Before anything is sent: the server knows no queue runs scheduled publications, and the form says so.
  await expect(schedule.getByTestId('schedule-warning')).toContainText('scheduled publications do not run: a scheduled article will not go live by itself')
  await expect(schedule.getByLabel('Publish at')).toHaveAttribute('aria-describedby', /warning/)
  const inTwoHours = new Date(Date.now() + 2 * 3_600_000)
  const local = new Date(inTwoHours.getTime() - inTwoHours.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
  await schedule.getByLabel('Publish at').fill(local)
  await schedule.getByRole('button', { name: 'Schedule publication' }).click()
  await expect(editor.getByTestId('workflow-status')).toContainText('Scheduled for')
  await expect(editor.getByTestId('workflow-status')).toContainText('will not go live by itself')
  await expect(editor.getByTestId('scheduled-for')).toContainText('— will not go live by itself')
  await editorContext.close()

  // A second editor's desk, as the morning meeting sees it.
  const adminContext = await signedInContext(browser, 'admin')
  const desk = await adminContext.newPage()
  await desk.goto('/')
  const stranded = desk.getByRole('region', { name: /Scheduled, but will not go live by itself/ })
  await expect(stranded.getByRole('listitem').filter({ hasText: headline })).toContainText('— will not go live by itself.')
  await expect(stranded.getByTestId('will-not-go-live-reason')).toContainText('No event queue (Inngest) is configured')
  await expect(desk.getByRole('region', { name: /Going live in the next 24 hours/ })).toHaveCount(0)
  await expect(desk.getByRole('link', { name: headline })).toHaveCount(1)
  await desk.screenshot({ path: 'docs/screenshots/desk-will-not-go-live.png' })
  await adminContext.close()
})

test('an editor reads the draft as readers will see it, a writer opens the same preview, a new link takes an expiry, and a revoked link has nothing to copy', async ({ browser, request }) => {
  const headline = `Night ferry returns to the islands ${stamp()}`
  const [writer] = await queryE2eDatabase<{ id: string }>('SELECT id FROM users WHERE email = $1', [seedUsers.writer.email])
  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])
  const created = await request.post('/v1/articles', {
    headers: { Authorization: `Bearer ${token}` },
    data: {
      headline,
      lede: 'The 23:40 sailing is back from Monday.',
      body: '<p>The operator restores the late crossing after a <strong>two-year</strong> gap.</p><h2>Timetable</h2><ul><li>Monday to Friday, 23:40</li><li>Saturday, 00:15</li></ul><figure><img src="/icon.svg" alt="The ferry operator’s badge" width="64" height="64"><figcaption>The operator’s badge</figcaption></figure><script>alert(1)</script>',
      tags: ['transport', 'islands'],
      author_id: writer!.id,
    },
  })
  expect(created.status()).toBe(201)
  const { article_id: articleId } = (await created.json()) as { article_id: string }

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto(`/articles/${articleId}`)
  await expect(editor.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  await editor.getByTestId('open-preview').click()
  await expect(editor).toHaveURL(new RegExp(`/articles/${articleId}/preview$`))
  const preview = editor.getByTestId('article-preview')
  await expect(editor.getByTestId('preview-banner')).toContainText('as readers will see it once published')
  await expect(editor.getByTestId('preview-banner')).toContainText('Now draft: readers do not see this text yet.')
  await expect(preview.getByRole('heading', { level: 2, name: headline })).toBeVisible()
  await expect(preview.getByTestId('preview-lede')).toHaveText('The 23:40 sailing is back from Monday.')
  await expect(preview.getByTestId('preview-byline')).toHaveText('By Daily Planet Writer')
  await expect(preview.getByTestId('preview-body').locator('strong')).toHaveText('two-year')
  await expect(preview.getByTestId('preview-body').getByRole('heading', { name: 'Timetable' })).toBeVisible()
  await expect(preview.getByTestId('preview-body').getByRole('listitem')).toHaveText(['Monday to Friday, 23:40', 'Saturday, 00:15'])
  await expect(preview.locator('script')).toHaveCount(0)
  // As readers get it: a bare <img> is not kept (bodies carry images only as media-library
  // figures), so the preview shows none, and the caption stays as text.
  await expect(preview.locator('img')).toHaveCount(0)
  await expect(preview.getByTestId('preview-body')).toContainText('The operator’s badge')
  await expect(preview.getByRole('list', { name: 'Tags' })).toContainText('transport')
  await editor.screenshot({ path: 'docs/screenshots/portal-preview.png', fullPage: true })

  // The writer, in their own browser, sees the same preview of their draft.
  const writerContext = await signedInContext(browser, 'writer')
  const writerPage = await writerContext.newPage()
  await writerPage.goto(`/articles/${articleId}`)
  await writerPage.getByTestId('open-preview').click()
  await expect(writerPage.getByTestId('article-preview').getByRole('heading', { level: 2, name: headline })).toBeVisible()
  await expect(writerPage.getByTestId('preview-byline')).toHaveText('By Daily Planet Writer')
  await writerContext.close()

  // Links for the newsroom's own site: an expiry chosen here, and revoking leaves nothing to copy.
  await editor.getByRole('link', { name: '← Back to the article' }).click()
  const links = editor.getByRole('region', { name: 'Preview on site' })
  await links.getByLabel('The link works for').selectOption({ label: 'An hour' })
  await links.getByRole('button', { name: 'Create a preview link' }).click()
  const minted = links.getByTestId('preview-link')
  await expect(minted).toContainText('/preview?token=nrp_')
  await expect(minted.getByRole('button', { name: 'Copy link' })).toBeVisible()
  const [stored] = await queryE2eDatabase<{ seconds: number }>(
    'SELECT round(extract(epoch FROM expires_at - created_at))::int AS seconds FROM preview_links WHERE article_id = $1 ORDER BY created_at DESC LIMIT 1',
    [articleId],
  )
  expect(stored!.seconds).toBe(3600)
  await links.getByTestId('live-preview-links').getByRole('button', { name: 'Revoke' }).click()
  await editor.getByRole('dialog', { name: 'Revoke this preview link?' }).getByRole('button', { name: 'Revoke link' }).click()
  await expect(links.getByTestId('preview-link-revoked')).toContainText('was revoked or has expired: it opens nothing now')
  await expect(links.getByTestId('preview-link')).toHaveCount(0)
  await expect(links.getByRole('button', { name: 'Copy link' })).toHaveCount(0)
  await expect(links.getByText('/preview?token=nrp_')).toHaveCount(0)
  await editorContext.close()
})
