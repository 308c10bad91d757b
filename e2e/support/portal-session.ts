import { expect, type Browser, type BrowserContext, type BrowserContextOptions } from '@playwright/test'
import { queryE2eDatabase } from './e2e-database.ts'

export type SeedRole = 'admin' | 'editor' | 'writer'

/** The seeded Daily Planet users (prisma/development-seed.ts). */
export const seedUsers: Record<SeedRole, { email: string; password: string; name: string }> = {
  admin: { email: 'admin@dailyplanet.example', password: 'newsroom-admin-dev', name: 'Daily Planet Admin' },
  editor: { email: 'editor@dailyplanet.example', password: 'newsroom-editor-dev', name: 'Daily Planet Editor' },
  writer: { email: 'writer@dailyplanet.example', password: 'newsroom-writer-dev', name: 'Daily Planet Writer' },
}

// Sign-ins are rate-limited per account (10 per 15 minutes), so each role signs in once per
// run and later contexts reuse its cookies.
const sessions = new Map<SeedRole, Awaited<ReturnType<BrowserContext['storageState']>>>()

/** A browser context signed in as the role, at a laptop's 1280×800 unless told otherwise. */
export async function signedInContext(browser: Browser, role: SeedRole, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const defaults: BrowserContextOptions = { viewport: { width: 1280, height: 800 }, locale: 'en-US', ...options }
  const known = sessions.get(role)
  if (known) {
    // The stored session may be older than sudo mode's 10 minutes by now; a journey that meets
    // the re-authentication dialog says so itself (sign-in-security.spec.ts).
    await queryE2eDatabase("UPDATE portal_sessions SET reauthenticated_at = now() WHERE ended_at IS NULL AND user_id = (SELECT id FROM users WHERE email = $1)", [seedUsers[role].email])
    return browser.newContext({ ...defaults, storageState: known })
  }

  const context = await browser.newContext(defaults)
  const page = await context.newPage()
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill(seedUsers[role].email)
  await page.getByLabel('Password').fill(seedUsers[role].password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('signed-in-user')).toContainText(`(${role})`)
  sessions.set(role, await context.storageState())
  await page.close()
  return context
}
