import { expect, type Page } from '@playwright/test'
import pg from 'pg'
import { e2eDatabaseUrl } from './e2e-env.ts'

/** The seeded development sign-ins of the Daily Planet (prisma/development-seed.ts). */
export const seeded = {
  admin: { email: 'admin@dailyplanet.example', password: 'newsroom-admin-dev', name: 'Daily Planet Admin' },
  editor: { email: 'editor@dailyplanet.example', password: 'newsroom-editor-dev', name: 'Daily Planet Editor' },
  writer: { email: 'writer@dailyplanet.example', password: 'newsroom-writer-dev', name: 'Daily Planet Writer' },
} as const

export async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('signed-in-user')).toBeVisible()
}

/**
 * A statement against the e2e server's database, for states a browser cannot reach in a
 * test's time (a key 91 days old, a subscription disabled after a day of failures).
 */
export async function sql(statement: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: e2eDatabaseUrl() })
  await client.connect()
  try {
    return await client.query(statement, values)
  } finally {
    await client.end()
  }
}
