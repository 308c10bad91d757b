import { expect, test, type Page } from '@playwright/test'
import { createE2eApiToken, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { createDraft, move } from './support/article-drafts.ts'

// Issue 45: team editing that never loses work and never takes a story down by accident, walked
// by two or three people at once (the seeded Daily Planet's editor, admin and writer), each in
// their own browser context. Every journey writes its own articles under unique headlines.

// Two or three people's pages, each polling, on a shared two-core machine: more than the default minute.
test.describe.configure({ timeout: 180_000 })

// A change elsewhere shows within the watch's check (2 s) plus a round trip; leave room for a busy machine.
const live = { timeout: 8000 }



async function stored(id: string) {
  const [row] = await queryE2eDatabase<{ status: string; headline: string; lede: string | null; body: string | null; version: number }>(
    'SELECT status, headline, lede, body, version FROM articles WHERE id = $1',
    [id],
  )
  if (!row) throw new Error(`No article ${id}`)
  return row
}

/** Focus is somewhere a keyboard user can go on from, never <body>. */
async function expectFocusOnThePage(page: Page) {
  await expect.poll(() => page.evaluate(() => document.activeElement?.tagName ?? 'NONE'), { timeout: 3000 }).not.toMatch(/^(BODY|NONE)$/)
}

test('an open Send back or Archive dialog refuses to act on a story a colleague published meanwhile, says so in place and asks again as a live story asks', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()

  for (const [button, question, retitled] of [
    ['Send back to draft', 'Send back to draft', 'Take this article off the site?'],
    ['Archive', 'Archive this article?', 'Take this article off the site and archive it?'],
  ] as const) {
    const headline = `Bridge inspection ${unique()}`
    const id = await createDraft(editor, { headline, lede: 'The council meets engineers.' })
    await move(editor, 'Submit for review', 'Moved to in review.')

    // The editor opens the dialog and starts writing why.
    await editor.getByRole('button', { name: button, exact: true }).click()
    const dialog = editor.getByRole('dialog')
    await expect(dialog.getByRole('heading', { name: question })).toBeVisible()
    await dialog.getByRole('textbox').fill('The second source is missing.')

    // Meanwhile the admin approves and publishes it.
    await admin.goto(`/articles/${id}`)
    await admin.getByRole('button', { name: 'Approve and publish' }).click()
    await expect(admin.getByTestId('workflow-status')).toContainText('Approved and published.')
    const published = await stored(id)
    expect(published.status).toBe('published')

    // The editor's dialog says so in place, without its old confirm button.
    const changed = dialog.getByTestId('dialog-changed')
    await expect(changed).toContainText(`it is now published (version ${published.version}), not in review`, live)
    await expect(changed).toContainText('Nothing has been done.')
    await expect(dialog.getByRole('button', { name: button === 'Archive' ? 'Archive' : 'Send back', exact: true })).toHaveCount(0)
    if (button === 'Send back to draft') await editor.screenshot({ path: 'docs/screenshots/dialog-changed-underneath.png' })

    // Asked again, it asks what a live story asks, with the note still there; nothing moved.
    await dialog.getByRole('button', { name: 'Ask me again for published' }).click()
    await expect(dialog.getByRole('heading', { name: retitled })).toBeVisible()
    await expect(dialog).toContainText(`“${headline}” is live at`)
    await expect(dialog.getByRole('textbox')).toHaveValue('The second source is missing.')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(dialog).toBeHidden()
    await expectFocusOnThePage(editor)
    expect(await stored(id)).toMatchObject({ status: 'published', version: published.version })
  }
  await editorContext.close()
  await adminContext.close()
})

test('the note typed with a move goes into the Send back dialog, and focus lands on the page after confirming', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  const headline = `School meals ${unique()}`
  const id = await createDraft(editor, { headline })
  await move(editor, 'Submit for review', 'Moved to in review.')

  await editor.getByLabel('Note with your move (optional)').fill('Check the figures with the council.')
  await editor.getByRole('button', { name: 'Send back to draft', exact: true }).click()
  const dialog = editor.getByRole('dialog', { name: 'Send back to draft' })
  await expect(dialog.getByLabel(/What needs doing\?/)).toHaveValue('Check the figures with the council.')
  await dialog.getByRole('button', { name: 'Send back' }).click()
  await expect(editor.getByTestId('workflow-status')).toHaveText('Moved to draft.')
  await expect(editor.getByTestId('article-notes')).toContainText('Check the figures with the council.')
  expect((await stored(id)).status).toBe('draft')
  await expectFocusOnThePage(editor)
  await expect(editor.getByRole('heading', { name: 'Workflow' })).toBeFocused()
  await editorContext.close()
})

test('the live notice names who acted and what they did, for the writer, the editor and the publisher alike', async ({ browser }) => {
  const writerContext = await signedInContext(browser, 'writer')
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const writer = await writerContext.newPage()
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Tram line ${unique()}`
  const id = await createDraft(writer, { headline, lede: 'Work starts in spring.' })
  await move(writer, 'Submit for review', 'Moved to in review.')

  // The editor sends it back with a note: the writer's page names the editor, not the writer.
  await editor.goto(`/articles/${id}`)
  await editor.getByRole('button', { name: 'Send back to draft', exact: true }).click()
  const dialog = editor.getByRole('dialog', { name: 'Send back to draft' })
  await dialog.getByLabel(/What needs doing\?/).fill('Name the contractor.')
  await dialog.getByRole('button', { name: 'Send back' }).click()
  await expect(writer.getByTestId('changed-underneath')).toContainText(`${seedUsers.editor.name} sent this back to draft: Name the contractor.`, live)

  // The writer resubmits; the editor saves a change; the admin approves and publishes: the editor's page names the admin.
  await writer.getByRole('button', { name: 'Submit for review', exact: true }).click()
  await expect(editor.getByTestId('changed-underneath')).toContainText(`${seedUsers.writer.name} submitted this for review.`, live)
  await editor.getByLabel('Lede').fill('Work starts in spring; the contractor is named.')
  await editor.getByRole('button', { name: 'Save changes' }).click()
  await expect(editor.getByTestId('save-status')).toContainText('Saved.')
  await admin.goto(`/articles/${id}`)
  await admin.getByRole('button', { name: 'Approve and publish' }).click()
  await expect(editor.getByTestId('changed-underneath')).toContainText(`${seedUsers.admin.name} published this article.`, live)

  // The admin takes it down: the editor, who saved it last, is not named as having done it.
  await admin.getByRole('button', { name: 'Unpublish' }).click()
  await admin.getByRole('dialog', { name: 'Take this article off the site?' }).getByRole('button', { name: 'Unpublish' }).click()
  await expect(admin.getByTestId('workflow-status')).toHaveText('Moved to draft.')
  await expect(editor.getByTestId('changed-underneath')).toContainText(`${seedUsers.admin.name} took this article off the site (back to draft).`, live)
  await expect(editor.getByTestId('changed-underneath')).not.toContainText(`${seedUsers.editor.name} `)
  await expect(writer.getByTestId('changed-underneath')).toContainText(`${seedUsers.admin.name} took this article off the site`, live)
  await writerContext.close()
  await editorContext.close()
  await adminContext.close()
})

test('a take-over whose taker saves within two seconds and leaves is seen by the former holder, in the banner and in History; then each side\'s change is saved without a question', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Harbour dredging ${unique()}`
  const id = await createDraft(editor, { headline, body: ['The first paragraph.'] })

  // The editor changes only the headline (and so holds the lease).
  await editor.getByLabel('Headline').fill(`${headline}, delayed`)
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [id])).length).toBe(1)

  // The admin takes over, adds a paragraph, saves and leaves, all before the editor's page next looks.
  await admin.goto(`/articles/${id}`)
  await admin.getByTestId('lease-banner').getByRole('button', { name: 'Take over editing' }).click()
  // The body opens for typing once the server has granted the take-over (on a loaded machine the
  // keys typed before that went into a read-only body, and the admin's save had nothing new).
  const adminBody = admin.getByRole('textbox', { name: 'Body' })
  await expect(adminBody).toHaveAttribute('contenteditable', 'true')
  await adminBody.click()
  await admin.keyboard.press('Control+End')
  await admin.keyboard.press('Enter')
  await admin.keyboard.type('A second paragraph from the admin.')
  await expect(adminBody).toContainText('A second paragraph from the admin.')
  await admin.getByRole('button', { name: 'Save changes' }).click()
  await expect(admin.getByTestId('save-status')).toContainText('Saved. This is now version 2.')
  await admin.goto('/articles')

  // The editor is told who took over, and that they let go; History shows the take-over.
  const banner = editor.getByTestId('lease-banner')
  await expect(banner).toContainText(`${seedUsers.admin.name} took over editing`, live)
  await expect(editor.getByTestId('article-history')).toContainText(`Took over editing from ${seedUsers.editor.name}.`, live)
  await expect(banner).toContainText('You can edit again', live)
  await expect(editor.getByLabel('Headline')).toHaveValue(`${headline}, delayed`)

  // Saving meets the admin's version: each changed a different field, so both are kept without a question.
  await editor.getByRole('button', { name: 'Save changes' }).click()
  await expect(editor.getByTestId('save-status')).toContainText('Combined with version 2', live)
  await expect(editor.getByTestId('save-status')).toContainText('Saved. This is now version 3.')
  await expect(editor.getByTestId('merge-changes')).toHaveCount(0)
  const saved = await stored(id)
  expect(saved).toMatchObject({ headline: `${headline}, delayed`, version: 3 })
  expect(saved.body).toContain('The first paragraph.')
  expect(saved.body).toContain('A second paragraph from the admin.')
  await editorContext.close()
  await adminContext.close()
})

test('lease banners follow the lease: a read-only page says who edits once, the copy box holds text, and a release or a re-take shows within seconds', async ({ browser }) => {
  const editorContext = await signedInContext(browser, 'editor')
  const adminContext = await signedInContext(browser, 'admin')
  const editor = await editorContext.newPage()
  const admin = await adminContext.newPage()
  const headline = `Library hours ${unique()}`
  const id = await createDraft(editor, { headline, body: ['Opening hours change in May.'] })
  await editor.getByLabel('Lede').fill('The library opens later.')
  await expect.poll(async () => (await queryE2eDatabase('SELECT 1 FROM article_leases WHERE article_id = $1', [id])).length).toBe(1)

  // The admin reads it only: the page says once who is editing.
  await admin.goto(`/articles/${id}`)
  await admin.getByTestId('lease-banner').getByRole('button', { name: 'Open read-only' }).click()
  await expect(admin.getByTestId('lease-banner')).toContainText(`Read-only: ${seedUsers.editor.name} is editing this article`)
  await expect(admin.getByText(`${seedUsers.editor.name} is editing this article`)).toHaveCount(1)
  await expect(admin.getByLabel('Headline')).toBeDisabled()

  // The admin takes over: the editor's copy box holds what was typed as text, not HTML.
  await admin.getByTestId('lease-banner').getByRole('button', { name: 'Take over editing' }).click()
  await expect(editor.getByTestId('lease-banner')).toContainText(`${seedUsers.admin.name} took over editing this article`, live)
  const kept = editor.getByLabel('What you typed (not saved), to copy')
  await expect(kept).toHaveValue(/The library opens later\./)
  await expect(kept).toHaveValue(/Opening hours change in May\./)
  await expect(kept).not.toHaveValue(/<p>/)
  await expect(editor.getByTestId('article-history')).toContainText(`Took over editing from ${seedUsers.editor.name}.`, live)

  // The admin leaves without saving: the lease is released, and the editor may edit again (and takes it back).
  await admin.goto('/articles')
  await expect(editor.getByTestId('lease-banner')).toContainText(`${seedUsers.admin.name} took over editing and has since let go`, live)
  await expect(editor.getByLabel('Lede')).toBeEnabled()
  await expect(editor.getByLabel('Lede')).toHaveValue('The library opens later.')
  await expect.poll(async () => (await queryE2eDatabase<{ holder_id: string }>('SELECT holder_id FROM article_leases WHERE article_id = $1', [id]))[0]?.holder_id, live).toBe(
    (await queryE2eDatabase<{ id: string }>('SELECT id FROM users WHERE email = $1', [seedUsers.editor.email]))[0]!.id,
  )

  // A page reading it read-only sees the release too: the admin comes back read-only, the editor saves.
  await admin.goto(`/articles/${id}`)
  await admin.getByTestId('lease-banner').getByRole('button', { name: 'Open read-only' }).click()
  await editor.getByRole('button', { name: 'Save changes' }).click()
  await expect(editor.getByTestId('save-status')).toContainText('Saved.')
  await expect(admin.getByTestId('lease-banner')).toContainText(`${seedUsers.editor.name} stopped editing`, live)
  await expect(admin.getByLabel('Headline')).toBeEnabled()
  await editorContext.close()
  await adminContext.close()
})

test('the merge panel asks only about fields both changed, reads as a choice and keeps its labels whole at 390 px', async ({ browser, request }) => {
  for (const width of [1280, 390]) {
    const editorContext = await signedInContext(browser, 'editor', { viewport: { width, height: width === 390 ? 844 : 900 } })
    const editor = await editorContext.newPage()
    const headline = `Market square ${unique()}`
    const id = await createDraft(editor, { headline, lede: 'Stalls return on Saturday.', body: ['The first paragraph.', 'The second paragraph.'] })
    await editor.getByLabel('Lede').fill('Stalls return on Sunday morning.')

    // Someone else (an integration, over the lease) changes the lede too, and the headline.
    const token = await createE2eApiToken('daily-planet', seedUsers.admin.email, ['articles:write'], `merge panel ${unique()}`)
    const patched = await request.patch(`/v1/articles/${id}`, {
      headers: { Authorization: `Bearer ${token}` },
      data: { headline: `${headline}: stalls back`, lede: 'Stalls return on Saturday at nine.', override_lock: true },
    })
    expect(patched.status()).toBe(200)
    await expect(editor.getByTestId('changed-underneath')).toBeVisible(live)
    await editor.getByRole('button', { name: 'Save changes' }).click()
    const panel = editor.getByTestId('merge-changes')
    await expect(panel.getByRole('heading', { name: 'Choose between your change and theirs' })).toBeVisible()
    await expect(panel.getByTestId('merge-settled')).toContainText('Headline (theirs)')
    await expect(panel.getByRole('group')).toHaveCount(1)
    await expect(panel.getByRole('radio', { checked: true })).toHaveCount(0)
    // Not an error: no alert role, not the error colour.
    await expect(editor.getByRole('alert').filter({ has: panel })).toHaveCount(0)
    // Each choice's words stay on one line beside its radio.
    for (const label of ['Keep my change', 'Take their change']) {
      const box = (await panel.getByText(label).boundingBox())!
      expect(box.height).toBeLessThan(30)
      expect(box.x + box.width).toBeLessThanOrEqual(width)
    }
    const { scrollWidth, clientWidth } = await editor.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth)
    if (width === 1280) await panel.screenshot({ path: 'docs/screenshots/merge-panel.png' })
    else await editor.screenshot({ path: 'docs/screenshots/merge-panel-390.png', fullPage: true })

    await panel.getByRole('group', { name: 'Lede' }).getByLabel('Keep my change').check()
    await panel.getByRole('button', { name: 'Use these choices' }).click()
    await expect(editor.getByLabel('Headline')).toHaveValue(`${headline}: stalls back`)
    await editor.getByRole('button', { name: 'Save changes' }).click()
    await expect(editor.getByTestId('save-status')).toContainText('Saved.')
    expect(await stored(id)).toMatchObject({ headline: `${headline}: stalls back`, lede: 'Stalls return on Sunday morning.' })
    await editorContext.close()
  }
})
