import { randomUUID } from 'node:crypto'
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { db } from '../../lib/db/client.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// break54 variant of break53-lock-audit-before-mail.
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let blackHole: Server
const sockets: Socket[] = []

beforeAll(async () => {
  blackHole = createServer((socket) => void sockets.push(socket))
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve))
  vi.stubEnv('SMTP_URL', `smtp://127.0.0.1:${(blackHole.address() as AddressInfo).port}`)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break54-lock-mailed-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `break54-lock:${randomUUID()}`)
  resetRateLimitersForTests()
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise<void>((resolve) => blackHole.close(() => resolve()))
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

// break54: since 4d5ae3a a lock's audit entry is written before the e-mail with `mailed: true`,
// and corrected to false only when the send fails. While the send is under way (a hung relay:
// ~30 s), the entry claims the member was e-mailed; a process stopped in that window (deploy,
// OOM, kill) leaves it so for good, and lockMailedRecently then skips the e-mail for every lock
// of that kind for the next 24 hours (passwords) or hour (codes): the member is never told.
describe('a lock whose e-mail has not gone (yet)', () => {
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
    expect((during!.metadata as { mailed?: unknown }).mailed).not.toBe(true)
  }, 60_000)
})
