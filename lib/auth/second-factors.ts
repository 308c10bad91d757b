import { systemDb } from '../tenancy/tenant-db.ts'

/** The second factors a member has. */
export type SecondFactors = { totp: boolean; passkeys: number; recoveryCodesLeft: number }

/** Read by sign-in (two steps or one), the policy check and Security. */
export async function secondFactorsOf(userId: string): Promise<SecondFactors> {
  const db = systemDb()
  const [totp, passkeys, recoveryCodesLeft] = await Promise.all([
    db.totpFactor.count({ where: { userId, confirmedAt: { not: null } } }),
    db.passkey.count({ where: { userId } }),
    db.recoveryCode.count({ where: { userId, usedAt: null } }),
  ])
  return { totp: totp > 0, passkeys, recoveryCodesLeft }
}

/**
 * Whether any factor that can finish a sign-in is set. Recovery codes are not one on their
 * own: they are the way back when the factor is lost, and exist only beside one.
 */
export function hasSecondFactor(factors: SecondFactors): boolean {
  return factors.totp || factors.passkeys > 0
}

/** What kinds of answer a sign-in's second step is offered: every factor the member has, recovery codes included. */
export type SecondFactorKind = 'totp' | 'passkey' | 'recovery_code'

export function secondFactorKinds(factors: SecondFactors): SecondFactorKind[] {
  const kinds: SecondFactorKind[] = []
  if (factors.totp) kinds.push('totp')
  if (factors.passkeys > 0) kinds.push('passkey')
  // Whatever the factor they stand in for: a passkey-only member who lost the device needs them most.
  if (factors.recoveryCodesLeft > 0) kinds.push('recovery_code')
  return kinds
}

/** Of a newsroom's members, those with a factor set (Settings → Members shows whom a reset concerns). */
export async function membersWithSecondFactors(tenantId: string): Promise<Set<string>> {
  const [totp, passkeys] = await Promise.all([
    systemDb().totpFactor.findMany({ where: { tenantId, confirmedAt: { not: null } }, select: { userId: true } }),
    systemDb().passkey.findMany({ where: { tenantId }, select: { userId: true }, distinct: ['userId'] }),
  ])
  return new Set([...totp, ...passkeys].map((row) => row.userId))
}
