import http from 'node:http'
import { expect, test, type Browser } from '@playwright/test'
import { totpCode, totpStep } from '../lib/auth/totp.ts'
import { e2eBaseUrl } from '../playwright.config.ts'
import { signIn, sql } from './support/portal.ts'

/**
 * Three holes of a security review (issue 46), as an IT administrator meets them in Chromium:
 * the SSO settings saved without retyping the client secret, a webhook's URL changed after the
 * sudo window expired, and an account locked by someone else's guesses.
 */
test.use({ viewport: { width: 1280, height: 800 } })

/** A member of the Daily Planet of their own, so what happens to them touches no other journey. */
async function freshMember(role: 'writer' | 'admin', label: string): Promise<{ email: string; password: string; name: string }> {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`
  const email = `${label}-${stamp}@dailyplanet.example`
  const password = 'a long e2e passphrase'
  const name = `Review ${label}`
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, $3, $4::"Role", $5, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2erv${stamp}`, email, name, role, await hashPassword(password)],
  )
  return { email, password, name }
}

/** Other journeys rely on the seeded admin being the newsroom's only admin. */
async function retire(email: string) {
  await sql('UPDATE users SET active = false, deactivated_at = now() WHERE email = $1', [email])
}

async function signedInBrowser(browser: Browser, who: { email: string; password: string }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const page = await context.newPage()
  await signIn(page, who)
  return { context, page }
}

/** Words of a server's insides that must never reach a browser. */
const internalText = /prisma|invalid `|argument `|constraint|node_modules|TypeError|\bat [\w.<>]+ \(/i

test('an admin changes single sign-on without retyping the client secret: Require SSO and a new name are saved, and nothing internal is shown', async ({ browser }) => {
  const admin = await freshMember('admin', 'sso-admin')
  const { context, page } = await signedInBrowser(browser, admin)
  // Every answer the portal gives this page, to prove none was a 500.
  const failures: string[] = []
  page.on('response', (response) => {
    if (response.status() >= 500) failures.push(`${response.status()} ${response.url()}`)
  })
  try {
    await page.goto('/settings/single-sign-on')
    await expect(page.getByRole('heading', { level: 1, name: 'Single sign-on' })).toBeVisible()
    // The first save needs the secret.
    await page.getByLabel(/Identity provider name/).fill('Example IdP')
    await page.getByLabel('Issuer URL').fill('https://login.dailyplanet.example')
    await page.getByLabel('Client id').fill('daily-planet-portal')
    await page.getByLabel('Client secret').fill('e2e-client-secret-0123456789')
    await page.getByRole('button', { name: 'Save single sign-on' }).click()
    await expect(page.getByText('Single sign-on saved.')).toBeVisible()
    const stored = (await sql(`SELECT client_secret_encrypted FROM sso_connections WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'daily-planet')`)).rows[0]
    expect(stored?.client_secret_encrypted).toBeTruthy()

    // Later, on another visit: the secret field is empty (it is never shown), and stays so.
    await page.reload()
    await expect(page.getByLabel('Client secret')).toHaveValue('')
    await expect(page.getByLabel('Client secret')).toHaveAttribute('placeholder', 'Stored (encrypted). Leave empty to keep it.')
    await page.getByLabel(/Identity provider name/).fill('Daily Planet Okta')
    await page.getByRole('checkbox', { name: /Require single sign-on/ }).check()
    await page.getByRole('button', { name: 'Save single sign-on' }).click()
    await expect(page.getByText('Single sign-on saved.')).toBeVisible()
    // No error shown (Next's route announcer is a role=alert region of its own, so count the page's error alerts).
    await expect(page.locator('.alert.error')).toHaveCount(0)
    await expect(page.locator('body')).not.toContainText(internalText)
    expect(failures).toEqual([])

    // Saved as shown after a reload, with the secret as it was.
    await page.reload()
    await expect(page.getByLabel(/Identity provider name/)).toHaveValue('Daily Planet Okta')
    await expect(page.getByRole('checkbox', { name: /Require single sign-on/ })).toBeChecked()
    const after = (await sql(`SELECT display_name, require_sso, client_secret_encrypted FROM sso_connections WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'daily-planet')`)).rows[0]
    expect(after).toMatchObject({ display_name: 'Daily Planet Okta', require_sso: true, client_secret_encrypted: stored!.client_secret_encrypted })

    // And switched off during an incident, still without the secret.
    await page.getByRole('checkbox', { name: /Require single sign-on/ }).uncheck()
    await page.getByRole('checkbox', { name: 'Members can sign in with it' }).uncheck()
    await page.getByRole('button', { name: 'Save single sign-on' }).click()
    await expect(page.getByText('Single sign-on saved.')).toBeVisible()
    await expect(page.locator('body')).not.toContainText(internalText)
    expect(failures).toEqual([])
  } finally {
    await context.close()
    // The other journeys sign in with passwords and see no SSO button.
    await sql(`DELETE FROM sso_connections WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'daily-planet')`)
    await retire(admin.email)
  }
})

test('with the sudo window expired, changing a webhook’s URL on its edit page asks “Confirm it’s you” and saves only after it', async ({ browser }) => {
  const admin = await freshMember('admin', 'webhook-admin')
  const { context, page } = await signedInBrowser(browser, admin)
  try {
    const stamp = Date.now()
    const oldUrl = `http://127.0.0.1:6952/hooks/review-${stamp}`
    const newUrl = `http://127.0.0.1:6953/elsewhere-${stamp}`
    await page.goto('/settings/webhooks/new')
    await page.getByLabel('Receiver URL').fill(oldUrl)
    await page.getByRole('group', { name: 'Events', exact: true }).getByRole('checkbox', { name: 'article.published' }).check()
    await page.getByRole('button', { name: 'Generate' }).click()
    await page.getByRole('button', { name: 'Create subscription' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Subscription created' })).toBeVisible()

    // Eleven minutes pass (the session's last proof moved back rather than waited for).
    await sql(`UPDATE portal_sessions SET reauthenticated_at = now() - interval '11 minutes' WHERE user_id = (SELECT id FROM users WHERE email = $1)`, [admin.email])

    await page.goto('/settings/webhooks')
    await page.getByRole('link', { name: `Edit ${oldUrl}` }).click()
    await expect(page.getByLabel('Receiver URL')).toHaveValue(oldUrl)
    await page.getByLabel('Receiver URL').fill(newUrl)
    await page.getByRole('button', { name: 'Save changes' }).click()

    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' })
    await expect(dialog).toBeVisible()
    // Nothing is saved while the dialog waits.
    const url = async () => (await sql('SELECT url FROM webhook_subscriptions WHERE url IN ($1, $2)', [oldUrl, newUrl])).rows.map((row) => row.url)
    expect(await url()).toEqual([oldUrl])
    await expect(page.getByRole('status').filter({ hasText: 'Saved the subscription.' })).toHaveCount(0)

    await dialog.getByLabel('Password').fill(admin.password)
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await expect(dialog).toBeHidden()
    await expect(page.getByRole('status').filter({ hasText: 'Saved the subscription.' })).toBeVisible()
    expect(await url()).toEqual([newUrl])
  } finally {
    await context.close()
    await retire(admin.email)
  }
})

/**
 * One sign-in attempt as the browser's form makes it (next-auth's credentials callback), sent
 * from another loopback address: the server appends the peer it accepted the connection from to
 * X-Forwarded-For and, with no trusted proxy in front (the e2e server sets no
 * TRUSTED_PROXY_HOPS), takes that peer as the client's address. So this is a guesser at
 * 127.0.0.2 while Chromium signs in from 127.0.0.1, and no header can blur the two.
 */
async function signInFrom(localAddress: string, email: string, password: string): Promise<string | null> {
  const base = new URL(e2eBaseUrl)
  const request = (method: 'GET' | 'POST', path: string, cookie: string, body?: string) =>
    new Promise<{ status: number; body: string; cookies: string[] }>((resolve, reject) => {
      const req = http.request(
        {
          host: base.hostname, port: base.port, path, method, localAddress,
          headers: {
            cookie,
            ...(body && { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), origin: base.origin }),
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), cookies: (res.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]!) }))
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  const csrf = await request('GET', '/api/auth/csrf', '')
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string }
  const answer = await request('POST', '/api/auth/callback/credentials', csrf.cookies.join('; '), new URLSearchParams({ email, password, csrfToken, callbackUrl: `${base.origin}/`, json: 'true' }).toString())
  expect(answer.status).toBeLessThan(500)
  const { url } = JSON.parse(answer.body) as { url: string }
  return new URL(url, base.origin).searchParams.get('error')
}

test('someone guessing a member’s password from one address locks that address out, not the member: from their own, password and code still sign them in', async ({ browser }) => {
  const member = await freshMember('writer', 'guessed')
  // The member has an authenticator app, set up in Security as they would.
  const setup = await signedInBrowser(browser, member)
  await setup.page.goto('/settings/security')
  await setup.page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  const secret = (await setup.page.getByTestId('totp-secret').innerText()).replace(/\s/g, '')
  await setup.page.getByLabel('Code the app shows now').fill(totpCode(secret, totpStep()))
  await setup.page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
  await expect(setup.page.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10)
  await setup.context.close()

  // Someone at 127.0.0.2 guesses: ten wrong passwords lock the account against that address.
  for (let guess = 0; guess < 10; guess++) expect(await signInFrom('127.0.0.2', member.email, `guess number ${guess}`)).toBe('CredentialsSignin')
  expect((await sql('SELECT sign_in_locked_until FROM users WHERE email = $1', [member.email])).rows[0]?.sign_in_locked_until).toBeTruthy()
  // The guesser is refused there even with the right password, and told the real wait.
  expect(await signInFrom('127.0.0.2', member.email, member.password)).toMatch(/^TooManySignInAttempts:\d+/)

  // The member, at their own address (Chromium, 127.0.0.1): password, then the code, and in.
  await sql(`UPDATE totp_factors SET last_used_step = $1 WHERE user_id = (SELECT id FROM users WHERE email = $2)`, [totpStep() - 2, member.email])
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const page = await context.newPage()
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill(member.email)
  await page.getByLabel('Password').fill(member.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  const codeField = page.getByLabel('Code from your authenticator app')
  await expect(codeField).toBeVisible()
  await expect(page.getByText(/Too many failed sign-ins|locked/)).toHaveCount(0)
  await codeField.fill(totpCode(secret, totpStep()))
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page.getByTestId('signed-in-user')).toContainText(member.name)
  await context.close()
})

test('a member without a second factor, locked by guesses from many addresses, still signs in from the browser they used before; a new browser is told why it waits', async ({ browser }) => {
  const member = await freshMember('writer', 'known-browser')
  // Last week: the member signed in on their laptop, then signed out. The browser keeps its note.
  const laptop = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const laptopPage = await laptop.newPage()
  await signIn(laptopPage, member)
  await laptopPage.context().clearCookies({ name: /next-auth/ })

  // Strangers: ten wrong passwords from 127.0.0.2 lock the account; one guess each from ten more
  // addresses (127.0.0.3–12) uses up the tries the lock leaves to addresses that did not fail.
  for (let guess = 0; guess < 10; guess++) expect(await signInFrom('127.0.0.2', member.email, `guess number ${guess}`)).toBe('CredentialsSignin')
  for (let host = 3; host <= 12; host++) expect(await signInFrom(`127.0.0.${host}`, member.email, `a guess from .${host}`)).toBe('CredentialsSignin')
  expect(await signInFrom('127.0.0.13', member.email, member.password)).toMatch(/^TooManySignInAttempts:\d+:locked$/)

  // A browser that never signed in to the account, at the member's own address: told why, and the wait.
  const borrowed = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const borrowedPage = await borrowed.newPage()
  await borrowedPage.goto('/signin')
  await borrowedPage.getByLabel('E-mail').fill(member.email)
  await borrowedPage.getByLabel('Password').fill(member.password)
  await borrowedPage.getByRole('button', { name: 'Sign in' }).click()
  await expect(borrowedPage.locator('p[role="alert"]')).toContainText(/locked after too many failed sign-ins from elsewhere\. Try again in \d+ minutes?\. A browser you have signed in with before still gets in/)
  await borrowed.close()

  // The laptop: the password, and in.
  await laptopPage.goto('/signin')
  await laptopPage.getByLabel('E-mail').fill(member.email)
  await laptopPage.getByLabel('Password').fill(member.password)
  await laptopPage.getByRole('button', { name: 'Sign in' }).click()
  await expect(laptopPage.getByTestId('signed-in-user')).toContainText(member.name)
  await laptop.close()
  await retire(member.email)
})
