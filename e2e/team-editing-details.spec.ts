import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test, type Browser, type Page } from '@playwright/test'
import { createE2eApiToken, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { signIn, sql } from './support/portal.ts'

// Issue 45, point 7: the smaller things seen in one walk through a newsroom's day.

const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`

async function editorToken() {
  return { Authorization: `Bearer ${await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])}` }
}

/** How far the page reaches past the screen's right edge (0 when it fits). */
async function overflow(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
}

test('a writer whose live story an editor takes down with a note sees it, and why, on their desk; the article no longer promises redirects; Archive stands apart', async ({ browser, request }) => {
  const headline = `Swimming pool reopens early ${stamp()}`
  const [writer] = await queryE2eDatabase<{ id: string }>('SELECT id FROM users WHERE email = $1', [seedUsers.writer.email])
  const headers = await editorToken()
  const created = await request.post('/v1/articles', { headers, data: { headline, lede: 'Doors open on Thursday.', author_id: writer!.id, status: 'in-review' } })
  expect(created.status()).toBe(201)
  const { article_id: articleId } = (await created.json()) as { article_id: string }

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto(`/articles/${articleId}`)
  await expect(editor.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  // In review: Approve among the everyday moves, Archive on its own below them.
  const workflow = editor.getByRole('complementary', { name: 'Workflow' })
  const apart = workflow.getByTestId('destructive-moves')
  await expect(apart.getByRole('button', { name: 'Archive', exact: true })).toBeVisible()
  await expect(apart.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0)
  const approve = workflow.getByRole('button', { name: 'Approve', exact: true })
  const archive = apart.getByRole('button', { name: 'Archive', exact: true })
  const [approveBox, archiveBox] = [(await approve.boundingBox())!, (await archive.boundingBox())!]
  expect(archiveBox.y, 'Archive sits below Approve, not beside it').toBeGreaterThan(approveBox.y + approveBox.height)

  await editor.getByRole('button', { name: 'Approve and publish' }).click()
  await expect(editor.getByTestId('article-status')).toHaveText('Published')
  await apart.getByRole('button', { name: 'Unpublish' }).click()
  const dialog = editor.getByRole('dialog', { name: 'Take this article off the site?' })
  await dialog.getByLabel(/Why \(optional\)/).fill('The pool’s opening date moved again; we will confirm first.')
  await dialog.getByRole('button', { name: 'Unpublish' }).click()
  await expect(editor.getByTestId('article-status')).toHaveText('Draft')
  // The address it had is kept for redirects, but it has no address now: the page does not claim one.
  await expect(editor.getByTestId('previous-urls')).toBeVisible()
  await expect(editor.getByTestId('previous-urls-hint')).toHaveText(/^It is not on the site now, so these lead nowhere/)
  await expect(workflow).not.toContainText('redirect these to the current address')
  await editorContext.close()

  const writerContext = await signedInContext(browser, 'writer')
  const writerPage = await writerContext.newPage()
  await writerPage.goto('/')
  const takenDown = writerPage.getByRole('region', { name: /Taken off the site/ })
  const item = takenDown.getByRole('listitem').filter({ hasText: headline })
  await expect(item).toContainText('Unpublished by Daily Planet Editor')
  await expect(item.getByTestId('take-down-note')).toHaveText(': The pool’s opening date moved again; we will confirm first.')
  await writerPage.screenshot({ path: 'docs/screenshots/desk-taken-down.png' })
  await writerContext.close()
})

test('the desk and the article list update by themselves: a story a writer submits appears on the editor’s open pages without a reload', async ({ browser }) => {
  const headline = `Tide tables for the regatta ${stamp()}`
  const editorContext = await signedInContext(browser, 'editor')
  const desk = await editorContext.newPage()
  await desk.goto('/')
  await expect(desk.getByTestId('live-list-note')).toHaveText('This page updates by itself every 10 seconds.')
  const list = await editorContext.newPage()
  await list.goto('/articles?status=in-review')
  await expect(list.getByTestId('live-list-note')).toBeVisible()

  const writerContext = await signedInContext(browser, 'writer')
  const writer = await writerContext.newPage()
  await writer.goto('/articles/new')
  await writer.getByLabel('Headline').fill(headline)
  await writer.getByRole('button', { name: 'Create draft' }).click()
  await expect(writer.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  await writer.getByRole('button', { name: 'Submit for review' }).click()
  await expect(writer.getByTestId('article-status')).toHaveText('In review')

  await expect(desk.getByRole('region', { name: /Waiting for your decision/ }).getByRole('link', { name: headline })).toBeVisible({ timeout: 25_000 })
  await list.bringToFront()
  await expect(list.getByRole('link', { name: headline })).toBeVisible({ timeout: 25_000 })
  await Promise.all([editorContext.close(), writerContext.close()])
})

test('at 390 px a revision card names each value; no page asks for /favicon.ico', async ({ browser, request }) => {
  const headline = `Library hours ${stamp()}`
  const headers = await editorToken()
  const created = await request.post('/v1/articles', { headers, data: { headline, lede: 'Longer on Thursdays.' } })
  const { article_id: articleId } = (await created.json()) as { article_id: string }
  expect((await request.patch(`/v1/articles/${articleId}`, { headers, data: { lede: 'Longer on Thursdays and Fridays.' } })).status()).toBe(200)

  const context = await signedInContext(browser, 'editor', { viewport: { width: 390, height: 844 } })
  const page = await context.newPage()
  const missing: string[] = []
  page.on('response', (response) => {
    if (response.status() === 404) missing.push(response.url())
  })
  await page.goto(`/articles/${articleId}`)
  const revisions = page.getByTestId('article-revisions')
  await expect(revisions).toBeVisible()
  const card = revisions.getByRole('row').nth(1)
  for (const label of ['Revision', 'Article version', 'When', 'Who', 'Changed']) {
    const cell = card.locator(`td[data-label="${label}"]`)
    await expect(cell).toBeVisible()
    expect(await cell.evaluate((element) => getComputedStyle(element, '::before').content)).toContain(label)
  }
  await page.screenshot({ path: 'docs/screenshots/phone-revision-cards.png', fullPage: true })

  // The portal names its icon, so browsers do not ask for /favicon.ico.
  await page.goto('/')
  const icon = page.locator('link[rel="icon"]').first()
  await expect(icon).toHaveAttribute('href', /\/icon\.svg/)
  expect((await request.get((await icon.getAttribute('href'))!)).status()).toBe(200)
  await page.waitForTimeout(500)
  expect(missing.filter((url) => url.includes('favicon'))).toEqual([])
  await context.close()
})

let receiver: Server
let receiverUrl: string
test.describe('a webhook attempt', () => {
  test.beforeAll(async () => {
    // A receiver that answers with what real ones do: a long header and a body on one line.
    receiver = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-trace-context': 'a'.repeat(600) })
        res.end(JSON.stringify({ received: true, echo: 'x'.repeat(3_000) }))
      })
    })
    await new Promise<void>((resolve) => receiver.listen(6241, '127.0.0.1', resolve))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  })
  test.afterAll(async () => {
    receiver.closeAllConnections()
    await new Promise((resolve) => receiver.close(resolve))
  })

  test('its request and response read inside a box at 1280 px and at 390 px, never a page wider than the screen', async ({ browser, request }) => {
    const token = await createE2eApiToken('daily-planet', seedUsers.admin.email, ['webhooks:manage'], `Attempt box ${stamp()}`)
    const hook = await request.post('/v1/webhooks', {
      headers: { Authorization: `Bearer ${token}` },
      data: { url: `${receiverUrl}/hooks/${stamp()}`, events: ['article.published'], secret: 'attempt-box-secret-0123456789' },
    })
    expect(hook.status()).toBe(201)
    const webhookId = (await hook.json()).webhook_id as string
    const context = await signedInContext(browser, 'admin')
    const page = await context.newPage()
    await page.goto(`/settings/webhooks/${webhookId}`)
    await page.getByRole('button', { name: 'Send test event' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'answered 200' })).toBeVisible()
    const delivery = page.getByRole('article').filter({ hasText: 'webhook.test' })
    await delivery.getByText('Request and response of attempt #1').click()
    const responseBody = delivery.getByTestId('attempt-response-body')
    await expect(responseBody).toContainText('"received":true')
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 })
      expect(await overflow(page), `the page at ${width} px`).toBeLessThanOrEqual(0)
      for (const box of [responseBody, delivery.getByTestId('attempt-request-body'), delivery.getByTestId('attempt-headers').last()]) {
        const fits = await box.evaluate((element) => {
          const rect = element.getBoundingClientRect()
          return { right: rect.right, height: rect.height, screen: document.documentElement.clientWidth }
        })
        expect(fits.right, `a box at ${width} px`).toBeLessThanOrEqual(fits.screen)
        // Long content scrolls inside its box rather than lengthening the page without end.
        expect(fits.height).toBeLessThanOrEqual(20 * 16 + 40)
      }
      await delivery.getByRole('heading', { name: 'Response' }).scrollIntoViewIfNeeded()
      await page.screenshot({ path: `docs/screenshots/webhook-attempt-${width}.png` })
    }
    await context.close()
  })
})

/** A member of their own, so ending their sessions touches no other journey's. */
async function freshWriter(): Promise<{ email: string; password: string }> {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const email = `confirm-${stamp()}@dailyplanet.example`
  const password = 'a long e2e passphrase'
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, 'Confirm Writer', 'writer'::"Role", $3, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2e${stamp()}`, email, await hashPassword(password)],
  )
  return { email, password }
}

async function signedInBrowser(browser: Browser, who: { email: string; password: string }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const page = await context.newPage()
  await signIn(page, who)
  return { context, page }
}

test('“Sign out all other sessions” asks first; cancelled, the other browser stays signed in; confirmed, it is signed out', async ({ browser }) => {
  const member = await freshWriter()
  const laptop = await signedInBrowser(browser, member)
  const phone = await signedInBrowser(browser, member)
  await laptop.page.goto('/settings/security')
  await laptop.page.getByRole('button', { name: 'Sign out all other sessions' }).click()
  const dialog = laptop.page.getByRole('dialog', { name: 'Sign out all other sessions?' })
  await expect(dialog).toContainText('must sign in again')
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await phone.page.goto('/articles')
  await expect(phone.page.getByTestId('signed-in-user')).toBeVisible()

  await laptop.page.getByRole('button', { name: 'Sign out all other sessions' }).click()
  await dialog.getByRole('button', { name: 'Sign out 1 session' }).click()
  await expect(laptop.page.getByRole('status').filter({ hasText: 'Signed out 1 other session.' })).toBeVisible()
  await phone.page.goto('/articles')
  await expect(phone.page).toHaveURL(/\/signin/)
  await Promise.all([laptop.context.close(), phone.context.close()])
})
