import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { issueRecoveryCodesIfNone } from '../../lib/auth/recovery-codes.ts'
import { createId } from '../../lib/ids.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break54: registerPasskey inserts the passkey (its foreign key takes FOR KEY SHARE on the
// member's users row) and then issueRecoveryCodesIfNone takes FOR UPDATE on the same row
// (0714586). Two tabs adding a passkey at once: both inserts hold KEY SHARE, each FOR UPDATE
// waits for the other's KEY SHARE, and PostgreSQL aborts one as a deadlock after
// deadlock_timeout (1 s): that tab's registration fails with an internal error.

const createCaller = createCallerFactory(appRouter)
const publicUrl = 'https://cms.newsroom.example'
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break54-passkeys-test-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const newMember = () => memberOfTheirOwn(newsroom, 'b54')

describe('two passkeys added at once (two tabs)', () => {
  it('the transaction body, interleaved: both inserts, then both recovery-code issues, both succeed', async () => {
    const user = await newMember()
    const { member } = user
    let arrived = 0
    let release!: () => void
    const bothInserted = new Promise<void>((resolve) => (release = resolve))
    // As registerPasskey's transaction: insert the passkey, then issueRecoveryCodesIfNone.
    const tab = (n: number) =>
      tenantDb(newsroom.tenant.id).$transaction(async (tx) => {
        await tx.passkey.create({ data: { id: createId('pky'), tenantId: newsroom.tenant.id, userId: user.id, credentialId: `cred-b54-${user.id}-${n}`, publicKey: Buffer.from([n]), counter: 0n, transports: [], deviceType: 'singleDevice', backedUp: false, name: `Tab ${n}` } })
        if (++arrived === 2) release()
        await bothInserted
        return issueRecoveryCodesIfNone(tx, member)
      }, { timeout: 20_000 })
    const outcomes = await Promise.allSettled([tab(1), tab(2)])
    expect(outcomes.map((o) => (o.status === 'rejected' ? String((o.reason as Error).message).slice(0, 200) : 'ok'))).toEqual(['ok', 'ok'])
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(10)
  }, 30_000)

  it('through Settings → Security, 25 members each adding two passkeys at once: every registration succeeds', async () => {
    const failures: string[] = []
    for (let round = 0; round < 25; round++) {
      const user = await newMember()
      const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.54' })
      expect(await browser.signIn(user.email, 'test-password')).toBe(true)
      const portal = async () => createCaller(portalContextFromSession(await browser.session(), browser.address))
      const keys = [new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' }), new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })]
      const options = [await (await portal()).security.passkeyRegistrationOptions(), await (await portal()).security.passkeyRegistrationOptions()]
      const outcomes = await Promise.allSettled(keys.map(async (key, i) => (await portal()).security.registerPasskey({ name: `Tab ${i}`, response: key.register(options[i]!) })))
      for (const o of outcomes) if (o.status === 'rejected') failures.push(`round ${round}: ${String((o.reason as Error).message).replace(/\s+/g, " ").slice(-90)}`)
    }
    expect(failures).toEqual([])
  }, 120_000)
})
