import { readFileSync } from 'node:fs'
import { expect, test } from '@playwright/test'
import { seeded, signIn, sql } from './support/portal.ts'

test.use({ viewport: { width: 1280, height: 800 } })

test("an admin downloads the newsroom's archive; the export is audited; others cannot download it", async ({ page, browser }) => {
  await signIn(page, seeded.admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Export' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Export' })).toBeVisible()
  await expect(page.getByText('member passwords')).toBeVisible()

  const downloading = page.waitForEvent('download')
  await page.getByRole('button', { name: /Download the newsroom’s archive/ }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^daily-planet-\d{4}-\d{2}-\d{2}\.ndjson$/)
  const lines = readFileSync((await download.path())!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; tenant?: { slug: string }; counts?: Record<string, number>; table?: string })
  expect(lines[0]).toMatchObject({ type: 'manifest', tenant: { slug: 'daily-planet' } })
  const end = lines.at(-1)!
  expect(end.type).toBe('end')
  const { rows } = await sql(`SELECT count(*)::int AS n FROM articles a JOIN tenants t ON t.id = a.tenant_id WHERE t.slug = 'daily-planet'`)
  expect(end.counts!.articles).toBe(rows[0].n)
  expect(lines.filter((line) => line.table === 'articles')).toHaveLength(rows[0].n)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('cell', { name: /Exported the newsroom/ }).first()).toBeVisible()

  // A writer of the same newsroom is refused the download, and a visitor who is not signed in too.
  const writer = await browser.newContext()
  const writerPage = await writer.newPage()
  await signIn(writerPage, seeded.writer)
  expect((await writerPage.request.get('/api/newsroom-export')).status()).toBe(403)
  await writer.close()
  const visitor = await browser.newContext()
  expect((await visitor.request.get(new URL('/api/newsroom-export', page.url()).toString())).status()).toBe(401)
  await visitor.close()
})
