import { describe, expect, it } from 'vitest'
import { replaceRecoveryCodes } from '../../lib/auth/recovery-codes.ts'
import { resetSecondFactors } from '../../lib/auth/two-factor.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant } from '../support/fixtures.ts'

// break54: since 0714586 new recovery codes lock the member's users row (FOR UPDATE) and then
// delete the member's codes. An admin's "reset second factors" does it the other way round: it
// deletes the member's codes (row locks on them), ends sessions, and then updates the member's
// users row (credentialsChangedAt). Admin resetting while the member presses "Regenerate
// codes" (or confirms an authenticator app): each waits for the other, and PostgreSQL aborts one
// as a deadlock (40P01) after deadlock_timeout: an internal error for the admin or the member.
// Before 0714586 regenerate took no lock on users and just waited for the reset to commit.
// The reset's update waits for the member's lock to be taken, or a second if it cannot be
// (now both take one advisory lock on the member's factors, so the member's waits for the reset).

type Member = Parameters<typeof replaceRecoveryCodes>[1]

function signal() {
  let fire!: () => void
  const fired = new Promise<void>((resolve) => (fire = resolve))
  return { fire, fired }
}

/** The transaction client with `hooks` run around the named calls (model.method or $queryRaw). */
function hooked<T extends object>(tx: T, hooks: Record<string, { before?: () => Promise<void>; after?: () => void }>): T {
  const wrap = (target: object, path: string): object =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver) as unknown
        const name = path ? `${path}.${String(key)}` : String(key)
        if (typeof value === 'function') {
          const hook = hooks[name]
          if (!hook) return (value as (...a: unknown[]) => unknown).bind(object)
          return async (...args: unknown[]) => {
            await hook.before?.()
            const result = await (value as (...a: unknown[]) => unknown).apply(object, args)
            hook.after?.()
            return result
          }
        }
        if (value && typeof value === 'object' && !path) return wrap(value, name)
        return value
      },
    })
  return wrap(tx, '') as T
}

describe('an admin resets a member\'s factors while the member makes new recovery codes', () => {
  it('both finish (one after the other), neither is a deadlock', async () => {
    const newsroom = await createTestTenant()
    const admin = { tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.admin.id } } as Member
    const member = { tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.writer.id } } as Member
    const tdb = tenantDb(newsroom.tenant.id)
    await tdb.$transaction((tx) => replaceRecoveryCodes(tx, member), { timeout: 20_000 })

    const codesDeleted = signal()
    const memberLocked = signal()
    const reset = tdb.$transaction(
      (tx) =>
        resetSecondFactors(
          hooked(tx, { 'recoveryCode.deleteMany': { after: codesDeleted.fire }, 'user.update': { before: () => Promise.race([memberLocked.fired, new Promise<void>((resolve) => setTimeout(resolve, 1_000))]) } }) as unknown as Parameters<typeof resetSecondFactors>[0],
          admin,
          member.user.id,
        ),
      { timeout: 20_000 },
    )
    const regenerate = codesDeleted.fired.then(() =>
      tdb.$transaction((tx) => replaceRecoveryCodes(hooked(tx, { $queryRaw: { after: memberLocked.fire } }), member), { timeout: 20_000 }),
    )
    const outcomes = await Promise.allSettled([reset, regenerate])
    expect(outcomes.map((o) => (o.status === 'rejected' ? String((o.reason as Error).message).replace(/\s+/g, ' ').slice(-120) : 'ok'))).toEqual(['ok', 'ok'])
  }, 30_000)
})
