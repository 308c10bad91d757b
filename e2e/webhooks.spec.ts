import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test } from '@playwright/test'
import { seeded, signIn, sql } from './support/portal.ts'

test.use({ viewport: { width: 1280, height: 800 } })

// A receiver on this machine; the e2e server runs with WEBHOOK_ALLOW_PRIVATE_URLS=true.
let receiver: Server
let receiverUrl: string
const received: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] = []

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) })
      res.writeHead(req.url?.startsWith('/fails') ? 500 : 200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})

test.afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise((resolve) => receiver.close(resolve))
})

function signatureValid(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'))
  const given = Buffer.from(header)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

test('an admin subscribes a receiver, sends a test event, sees the attempt, redelivers, edits, re-enables and deletes', async ({ page }) => {
  await signIn(page, seeded.admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible()
  await page.getByRole('link', { name: 'Add subscription' }).click()

  // Every refusal is explained, and focus goes to the first field at fault.
  await page.getByRole('button', { name: 'Create subscription' }).click()
  await expect(page.getByText('Enter the URL that should receive the events.')).toBeVisible()
  await expect(page.getByText('Choose at least one event.')).toBeVisible()
  await expect(page.getByText('The secret needs 16 to 512 characters.')).toBeVisible()
  await expect(page.getByLabel('Receiver URL')).toBeFocused()

  const hookUrl = `${receiverUrl}/hooks/newsroom`
  await page.getByLabel('Receiver URL').fill(hookUrl)
  const events = page.getByRole('group', { name: 'Events', exact: true })
  // Events by group, as the spec's table groups them.
  for (const group of ['Article', 'Media', 'User', 'Workflow', 'Billing']) await expect(events.getByRole('group', { name: group })).toBeVisible()
  // Kinds nothing emits yet say so where they are offered.
  await expect(events.getByRole('group', { name: 'Billing' })).toContainText('Not sent yet')
  await expect(events.getByRole('group', { name: 'Article' })).not.toContainText('Not sent yet')
  await expect(events.getByRole('group', { name: 'Media' })).not.toContainText('Not sent yet')
  await events.getByRole('checkbox', { name: 'All User events' }).check()
  for (const kind of ['user.created', 'user.role_changed', 'user.deactivated']) await expect(events.getByRole('checkbox', { name: kind })).toBeChecked()
  await events.getByRole('checkbox', { name: 'article.published' }).check()
  await page.getByRole('button', { name: 'Generate' }).click()
  const secret = await page.getByLabel('Signing secret').inputValue()
  expect(secret).toMatch(/^[0-9a-f]{64}$/)
  await page.getByRole('button', { name: 'Create subscription' }).click()

  await expect(page).toHaveURL(/\/settings\/webhooks\/whk_[a-z0-9]+\?created=1$/)
  await expect(page.getByRole('status').filter({ hasText: 'Subscription created' })).toBeVisible()
  await expect(page.getByText('Nothing was delivered yet.')).toBeVisible()
  // The page says how long attempts and their bodies are kept: the server's setting (start-server.ts sets 45, not the default 30).
  await expect(page.getByTestId('delivery-retention')).toContainText('what was sent (headers and body) and what came back')
  await expect(page.getByTestId('delivery-retention')).toContainText('for 45 days after it was created, then deleted overnight')

  // "Send test event" delivers at once, signed with the secret, and reports how it went.
  await page.getByRole('button', { name: 'Send test event' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Test event delivered: ${hookUrl} answered 200` })).toBeVisible()
  expect(received).toHaveLength(1)
  const delivered = received[0]!
  expect(delivered.path).toBe('/hooks/newsroom')
  expect(delivered.headers['x-service-event']).toBe('webhook.test')
  expect(signatureValid(secret, delivered.body, delivered.headers['x-service-signature'])).toBe(true)
  expect(JSON.parse(delivered.body.toString())).toMatchObject({ event: 'webhook.test', tenant_id: expect.any(String) })

  const delivery = page.getByRole('article').filter({ hasText: 'webhook.test' })
  await expect(delivery.getByRole('heading')).toContainText('succeeded')
  const attempts = delivery.getByRole('table')
  await expect(attempts.getByRole('columnheader')).toHaveText(['Attempt', 'Time', 'Status code', 'Duration', 'Error'])
  await expect(attempts.getByRole('row').nth(1)).toContainText('#1')
  await expect(attempts.getByRole('row').nth(1)).toContainText('200')
  await expect(attempts.getByRole('row').nth(1)).toContainText(/\d+ ms/)

  await delivery.getByRole('button', { name: /^Redeliver webhook\.test/ }).click()
  await expect(page.getByRole('status').filter({ hasText: 'answered 200' })).toBeVisible()
  await expect(attempts.getByRole('row')).toHaveCount(3)
  await expect(attempts.getByRole('row').nth(2)).toContainText('#2')
  expect(received).toHaveLength(2)
  // A redelivery is the same delivery: same id header, same event.
  expect(received[1]!.headers['x-service-delivery']).toBe(delivered.headers['x-service-delivery'])
  await page.screenshot({ path: 'docs/screenshots/webhook-deliveries.png' })

  // Each attempt shows what was sent and what came back.
  await delivery.getByText('Request and response of attempt #1').click()
  await expect(delivery.getByText(/webhook-signature: v1,/).first()).toBeVisible()
  await expect(delivery.getByText('Status 200').first()).toBeVisible()

  // Rotating the secret shows the new one once; the old one keeps signing for a day.
  // It asks first in the portal's own dialog (never the browser's), saying what happens to the receiver.
  page.on('dialog', (dialog) => {
    throw new Error(`A native ${dialog.type()} dialog appeared: ${dialog.message()}`)
  })
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  const rotateDialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
  await expect(rotateDialog).toContainText('after that a receiver that still checks the current secret rejects every delivery')
  await rotateDialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(rotateDialog).toBeHidden()
  await expect(page.getByTestId('new-secret')).toHaveCount(0)
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await rotateDialog.getByRole('button', { name: 'Rotate secret' }).click()
  await expect(page.getByTestId('new-secret')).toContainText('whsec_')
  const rotatedSecret = (await page.getByTestId('rotated-secret').textContent()) ?? ''
  expect(rotatedSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
  // Shown once, with a Copy button that puts exactly the secret on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await page.getByRole('button', { name: 'Copy secret', exact: true }).click()
  await expect(page.getByTestId('new-secret').getByText('Copied to the clipboard.')).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rotatedSecret)
  await page.screenshot({ path: 'docs/screenshots/webhook-secret-rotated.png' })
  await expect(page.getByText(/Still signs deliveries, beside the new one, until/)).toBeVisible()
  await page.getByRole('button', { name: 'I have stored it' }).click()
  await expect(page.getByTestId('new-secret')).toHaveCount(0)

  // Pause and resume.
  await page.getByRole('button', { name: 'Pause', exact: true }).click()
  const pauseDialog = page.getByRole('dialog', { name: 'Pause deliveries to this receiver?' })
  await expect(pauseDialog).toContainText('stops receiving events as soon as you confirm')
  await pauseDialog.getByRole('button', { name: 'Pause deliveries' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Paused. New deliveries wait' })).toBeVisible()
  await expect(page.getByText('Paused', { exact: true })).toBeVisible()
  await page.getByRole('button', { name: 'Resume', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Resumed.' })).toBeVisible()
  await expect(page.getByText('Enabled', { exact: true })).toBeVisible()

  // The list: url, events, status and the last delivery's result.
  await page.getByRole('link', { name: '← Webhooks' }).click()
  const row = page.getByRole('row', { name: new RegExp(hookUrl.replace(/[.?]/g, '\\$&')) })
  await expect(row).toContainText('user.created')
  await expect(row).toContainText('article.published')
  await expect(row).toContainText('Enabled')
  await expect(row.getByRole('cell').nth(2)).toContainText('200')

  // Edit: point it at a failing receiver; the secret field left empty keeps the secret.
  await row.getByRole('link', { name: `Edit ${hookUrl}` }).click()
  await expect(page.getByLabel('Receiver URL')).toHaveValue(hookUrl)
  await expect(page.getByRole('checkbox', { name: 'user.deactivated' })).toBeChecked()
  const failingUrl = `${receiverUrl}/fails`
  await page.getByLabel('Receiver URL').fill(failingUrl)
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved the subscription.' })).toBeVisible()
  const failingRow = page.getByRole('row', { name: new RegExp(failingUrl.replace(/[.?]/g, '\\$&')) })
  await failingRow.getByRole('button', { name: `Send test event to ${failingUrl}` }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'Test event failed: The receiver answered 500.' })).toBeVisible()
  await expect(failingRow.getByRole('cell').nth(2)).toContainText('500')
  // X-Service-Signature uses the rotated secret from the moment of the rotation.
  expect(signatureValid(rotatedSecret, received.at(-1)!.body, received.at(-1)!.headers['x-service-signature'])).toBe(true)
  expect(signatureValid(secret, received.at(-1)!.body, received.at(-1)!.headers['x-service-signature'])).toBe(false)

  // A subscription the service disabled after a day of failures is re-enabled from the list.
  await sql(`UPDATE webhook_subscriptions SET status = 'disabled', disabled_at = now(), disabled_reason = 'delivery_failures' WHERE url = $1`, [failingUrl])
  await page.reload()
  await expect(failingRow).toContainText('Disabled')
  await expect(failingRow).toContainText('after one delivery failed 7 times in a row')
  await failingRow.getByRole('button', { name: `Re-enable ${failingUrl}` }).click()
  await expect(page.getByRole('status').filter({ hasText: `Re-enabled ${failingUrl}` })).toBeVisible()
  await expect(failingRow).toContainText('Enabled')
  await expect(failingRow.getByRole('button', { name: /^Re-enable/ })).toHaveCount(0)

  // Delete asks first.
  await failingRow.getByRole('button', { name: `Delete ${failingUrl}` }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete this subscription?' })
  await expect(dialog).toContainText(failingUrl)
  await dialog.getByRole('button', { name: 'Delete subscription' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Deleted the subscription to ${failingUrl}` })).toBeVisible()
  await expect(failingRow).toHaveCount(0)
})

test('an admin narrows a subscription to the Sport desk\'s published stories, sees it in the list and the test event, and edits the filter', async ({ page }) => {
  await signIn(page, seeded.admin)
  await page.goto('/settings/webhooks/new')
  const hookUrl = `${receiverUrl}/hooks/sport`
  await page.getByLabel('Receiver URL').fill(hookUrl)
  const events = page.getByRole('group', { name: 'Events', exact: true })
  await events.getByRole('checkbox', { name: 'article.published' }).check()
  await events.getByRole('checkbox', { name: 'user.created' }).check()
  const filters = page.getByRole('group', { name: 'Only these articles (optional)' })
  await filters.getByRole('group', { name: 'Departments' }).getByRole('checkbox', { name: 'Sport' }).check()
  await filters.getByLabel('Tags (any of)').fill('Election, vote')
  await filters.getByRole('group', { name: 'Status after the change' }).getByRole('checkbox', { name: 'published' }).check()
  await page.getByRole('button', { name: 'Generate' }).click()
  await page.getByRole('button', { name: 'Create subscription' }).click()
  await expect(page).toHaveURL(/\/settings\/webhooks\/whk_[a-z0-9]+\?created=1$/)

  // The test event goes out whatever the filter, and says which real events pass it.
  const before = received.length
  await page.getByRole('button', { name: 'Send test event' }).click()
  const summary = 'article.published events about articles in Sport, tagged Election or vote (any spelling), whose status after the change is published; every user.created event.'
  await expect(page.getByRole('status').filter({ hasText: `Real events it receives: ${summary}` })).toBeVisible()
  expect(JSON.parse(received[before]!.body.toString()).data.filter).toMatchObject({ tags: ['Election', 'vote'], statuses: ['published'] })

  await page.getByRole('link', { name: '← Webhooks' }).click()
  const row = page.getByRole('row', { name: new RegExp(hookUrl.replace(/[.?]/g, '\\$&')) })
  await expect(row.getByTestId('webhook-filter')).toHaveText(summary)
  await page.screenshot({ path: 'docs/screenshots/webhook-filters.png' })

  // Edit: the form shows the filter as saved; dropping the status and a tag narrows less.
  await row.getByRole('link', { name: `Edit ${hookUrl}` }).click()
  const editFilters = page.getByRole('group', { name: 'Only these articles (optional)' })
  await expect(editFilters.getByRole('checkbox', { name: 'Sport' })).toBeChecked()
  await expect(editFilters.getByRole('checkbox', { name: 'Politics' })).not.toBeChecked()
  await expect(editFilters.getByLabel('Tags (any of)')).toHaveValue('Election, vote')
  await expect(editFilters.getByRole('checkbox', { name: 'published' })).toBeChecked()
  await editFilters.getByRole('checkbox', { name: 'published' }).uncheck()
  await editFilters.getByLabel('Tags (any of)').fill('vote')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved the subscription.' })).toBeVisible()
  await expect(row.getByTestId('webhook-filter')).toHaveText('article.published events about articles in Sport, tagged vote (any spelling); every user.created event.')
  const stored = await sql('SELECT department_ids, tags, statuses FROM webhook_subscriptions WHERE url = $1', [hookUrl])
  expect(stored.rows[0]).toMatchObject({ tags: ['vote'], statuses: [] })
  expect(stored.rows[0].department_ids).toHaveLength(1)
})

test('with no queue reachable, Settings → Webhooks says that deliveries wait, since when, and what fixes it', async ({ page }) => {
  // The e2e server runs without Inngest, as npm run dev does when its dev server is absent;
  // an event left in the outbox five minutes ago stands for what the newsroom's writes left.
  await signIn(page, seeded.admin)
  const tenant = await sql(`SELECT id FROM tenants WHERE slug = 'daily-planet'`)
  expect(tenant.rows).toHaveLength(1)
  await sql(
    `INSERT INTO events (id, tenant_id, kind, occurred_at, data, created_at) VALUES ('evt_e2e_waiting', $1, 'article.published', now() - interval '5 minutes', '{}', now() - interval '5 minutes') ON CONFLICT (id) DO NOTHING`,
    [tenant.rows[0].id],
  )
  await page.goto('/settings/webhooks')
  const notice = page.getByTestId('event-queue-notice')
  await expect(notice).toBeVisible()
  await expect(notice).toContainText(/events? (is|are) waiting to be delivered, the oldest for \d+ (min|h|days)/)
  await expect(notice).toContainText('No Inngest is configured')
  await expect(notice).toContainText('INNGEST_EVENT_KEY')
})
