import { createHash, randomBytes } from 'node:crypto'
import type { Prisma } from '../db/generated/client.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { toBase32 } from './totp.ts'

// Recovery codes stand in for whatever second factor a member has (an authenticator app,
// passkeys): made when the first factor is added, used once each at sign-in, gone with the
// last factor. Only their hashes are kept; the plaintext is in one answer, shown once.

type Member = Actor & { user: NonNullable<Actor['user']> }

export const recoveryCodeCount = 10

export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex')
}

/** People type them with or without the dash, in either case. */
export function normaliseRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase()
}

/** Ten new codes like `k3m9x-7qp2d` (50 random bits each); the plaintext exists only in the answer. */
function newRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () => {
    const text = toBase32(randomBytes(7)).slice(0, 10).toLowerCase()
    return `${text.slice(0, 5)}-${text.slice(5)}`
  })
}

export type RecoveryCodeWriter = {
  recoveryCode: {
    deleteMany(args: Prisma.RecoveryCodeDeleteManyArgs): PromiseLike<unknown>
    createMany(args: Prisma.RecoveryCodeCreateManyArgs): PromiseLike<unknown>
  }
}

export async function replaceRecoveryCodes(tx: RecoveryCodeWriter, member: Member): Promise<string[]> {
  const codes = newRecoveryCodes()
  await tx.recoveryCode.deleteMany({ where: { userId: member.user.id } })
  await tx.recoveryCode.createMany({ data: codes.map((code) => ({ id: createId('rcv'), tenantId: member.tenant.id, userId: member.user.id, codeHash: hashRecoveryCode(code) })) })
  return codes
}

/**
 * A factor was just added (inside its transaction): a member who has no unused recovery code
 * (their first factor, or all used up) gets ten, returned to be shown once; else null, and the
 * codes they have keep working.
 */
export async function issueRecoveryCodesIfNone(
  tx: RecoveryCodeWriter & { recoveryCode: { count(args: Prisma.RecoveryCodeCountArgs): PromiseLike<number> } },
  member: Member,
): Promise<string[] | null> {
  if ((await tx.recoveryCode.count({ where: { userId: member.user.id, usedAt: null } })) > 0) return null
  return replaceRecoveryCodes(tx, member)
}
