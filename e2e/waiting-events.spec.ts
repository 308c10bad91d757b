import { expect, test } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

test('an admin pages through a long outbox backlog, oldest first, sees every waiting event once, and goes back to the oldest', async ({ browser }) => {
  const [newsroom] = await queryE2eDatabase<{ id: string }>("SELECT id FROM tenants WHERE slug = 'daily-planet'")
  const marker = unique()
  // A backlog longer than a page (the e2e server has no Inngest, so events wait): 120 events,
  // newer than any other, so they end the list whatever the other specs left waiting.
  await queryE2eDatabase(
    `INSERT INTO events (id, tenant_id, kind, occurred_at, created_at, data)
     SELECT 'evt_' || $2 || lpad(n::text, 4, '0'), $1, 'webhook.test', now(), now() + n * interval '1 millisecond', jsonb_build_object('marker', $2::text)
     FROM generate_series(1, 120) AS n`,
    [newsroom!.id, marker],
  )
  const context = await signedInContext(browser, 'admin')
  try {
    const page = await context.newPage()
    await page.goto('/settings/webhooks/waiting-events')
    const count = page.getByTestId('waiting-events-count')
    const total = Number(/^([\d,]+) events are waiting\./.exec((await count.textContent()) ?? '')![1]!.replaceAll(',', ''))
    expect(total).toBeGreaterThanOrEqual(120)
    await expect(count).toContainText(`Shown: 1–100, oldest first.`)

    const pages = page.getByRole('navigation', { name: 'Waiting event pages' })
    let seen = 0
    for (;;) {
      const rows = await page.getByTestId('waiting-events').getByRole('row').count()
      await expect(count).toContainText(`Shown: ${(seen + 1).toLocaleString('en-US')}–${(seen + rows - 1).toLocaleString('en-US')}, oldest first.`)
      seen += rows - 1
      const next = pages.getByRole('link', { name: 'Next 100 →' })
      if ((await next.count()) === 0) break
      await next.click()
      await expect(count).toContainText(`Shown: ${(seen + 1).toLocaleString('en-US')}–`)
    }
    // Every waiting event once: the pages together hold the total, and the last ends with ours.
    expect(seen).toBe(total)
    await expect(page.getByTestId('waiting-events').getByRole('row').last()).toContainText('webhook.test')
    await page.screenshot({ path: 'docs/screenshots/waiting-events-last-page.png', fullPage: true })

    await pages.getByRole('link', { name: '← Oldest' }).click()
    await expect(count).toContainText('Shown: 1–100, oldest first.')
    await expect(pages.getByRole('link', { name: '← Oldest' })).toHaveCount(0)
  } finally {
    await context.close()
    await queryE2eDatabase("DELETE FROM events WHERE data->>'marker' = $1", [marker])
  }
})
