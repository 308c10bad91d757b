import { describe, expect, it } from 'vitest'
import { issueRecoveryCodesIfNone, replaceRecoveryCodes } from '../../lib/auth/recovery-codes.ts'
import { createId } from '../../lib/ids.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant } from '../support/fixtures.ts'

// break54: a passkey being added (its insert holds FOR KEY SHARE on users, then FOR UPDATE)
// while the member's other tab regenerates codes (FOR UPDATE on users, queued behind the
// passkey's KEY SHARE).
type Member = Parameters<typeof replaceRecoveryCodes>[1]

describe('a passkey added while another tab regenerates codes', () => {
  it('both finish, and the member has one set of ten live codes', async () => {
    const newsroom = await createTestTenant()
    const member = { tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.writer.id } } as Member
    const tdb = tenantDb(newsroom.tenant.id)
    let inserted!: () => void
    const afterInsert = new Promise<void>((resolve) => (inserted = resolve))
    const passkey = tdb.$transaction(async (tx) => {
      await tx.passkey.create({ data: { id: createId('pky'), tenantId: newsroom.tenant.id, userId: member.user.id, credentialId: `cred-b54r-${member.user.id}`, publicKey: Buffer.from([1]), counter: 0n, transports: [], deviceType: 'singleDevice', backedUp: false, name: 'Tab 1' } })
      inserted()
      // The other tab's regenerate hashes (~100 ms) and then queues for the row.
      await new Promise((resolve) => setTimeout(resolve, 600))
      return issueRecoveryCodesIfNone(tx, member)
    }, { timeout: 20_000 })
    const regenerate = afterInsert.then(() => tdb.$transaction((tx) => replaceRecoveryCodes(tx, member), { timeout: 20_000 }))
    const outcomes = await Promise.allSettled([passkey, regenerate])
    expect(outcomes.map((o) => (o.status === 'rejected' ? String((o.reason as Error).message).replace(/\s+/g, ' ').slice(-100) : 'ok'))).toEqual(['ok', 'ok'])
    // One set of ten, whichever went second: not twenty.
    expect(await tdb.recoveryCode.count({ where: { userId: member.user.id, usedAt: null } })).toBe(10)
  }, 30_000)
})
