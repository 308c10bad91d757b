import { randomUUID } from 'node:crypto'
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { db } from '../../lib/db/client.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// break53: since 83dfeee a lock's audit entry (user.sign_in_locked) is written after the lock
// e-mail is sent (to record `mailed`), where before it was written first. With a mail server
// that accepts the connection and never greets (a hung relay, a firewall that drops), the lock
// is in force but the audit says nothing of it until the send gives up (~30 s measured: nodemailer greeting 10 s, then retries/socket timeouts); a
// process stopped in that window (deploy, OOM, kill) never records the lock at all. The
// account's owner and its admins read the audit to learn that, and when, it was locked.

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let blackHole: Server
const sockets: Socket[] = []

beforeAll(async () => {
  blackHole = createServer((socket) => void sockets.push(socket))
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve))
  vi.stubEnv('SMTP_URL', `smtp://127.0.0.1:${(blackHole.address() as AddressInfo).port}`)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break53-lock-audit-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `break53-lock:${randomUUID()}`)
  resetRateLimitersForTests()
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise<void>((resolve) => blackHole.close(() => resolve()))
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('a lock while the mail server hangs', () => {
  it('is in the audit as soon as the account is locked, not after the e-mail gives up', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    const guess = () => nextAuthBrowser({ userAgent: firefox, address: '203.0.113.53' }).step('credentials', { email: writer.email, password: 'not-the-password' })
    for (let i = 0; i < 3; i++) await guess()
    const locking = guess()
    // The lock itself is written at once…
    await expect.poll(async () => (await db.user.findUniqueOrThrow({ where: { id: writer.id } })).signInLockedUntil, { timeout: 3_000 }).not.toBeNull()
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    // …and so should its audit entry be.
    const locks = await db.auditEntry.count({ where: { tenantId: newsroom.tenant.id, action: 'user.sign_in_locked', targetId: writer.id } })
    await locking
    expect(locks).toBe(1)
    // The send gave up: the entry says the member was not told, so the next lock e-mails again.
    const [entry] = await db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'user.sign_in_locked', targetId: writer.id } })
    expect(entry!.metadata).toMatchObject({ mailed: false })
  }, 60_000)

  // A send under way (the relay has not even greeted) must not be audited as done: a process
  // stopped then left the entry claiming an e-mail, and lock e-mails were skipped for 24 h (break54).
  it('is not audited as mailed while the send is still under way', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    const guess = () => nextAuthBrowser({ userAgent: firefox, address: '203.0.113.54' }).step('credentials', { email: writer.email, password: 'not-the-password' })
    for (let i = 0; i < 3; i++) await guess()
    const locking = guess()
    await expect.poll(async () => db.auditEntry.count({ where: { tenantId: newsroom.tenant.id, action: 'user.sign_in_locked', targetId: writer.id } }), { timeout: 5_000 }).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    // The relay has not even greeted: nothing was sent. What the audit says now is what stays if the process stops.
    const [during] = await db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'user.sign_in_locked', targetId: writer.id } })
    const sentMail = await db.mailMessage.count({ where: { tenantId: newsroom.tenant.id, sentAt: { not: null } } })
    await locking
    expect(sentMail).toBe(0)
    expect((during!.metadata as { mailed?: unknown }).mailed).toBe(false)
  }, 60_000)
})
