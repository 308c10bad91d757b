import { systemDb } from '../tenancy/tenant-db.ts'

/** The second factors a member has; passkeys join as one more field. */
export type SecondFactors = { totp: boolean; recoveryCodesLeft: number }

/** Read by sign-in (two steps or one), the policy check and Security. */
export async function secondFactorsOf(userId: string): Promise<SecondFactors> {
  const db = systemDb()
  const [totp, recoveryCodesLeft] = await Promise.all([
    db.totpFactor.count({ where: { userId, confirmedAt: { not: null } } }),
    db.recoveryCode.count({ where: { userId, usedAt: null } }),
  ])
  return { totp: totp > 0, recoveryCodesLeft }
}

/**
 * Whether any factor that can finish a sign-in is set. Recovery codes are not one on their
 * own: they are the way back when the factor is lost, and exist only beside one.
 */
export function hasSecondFactor(factors: SecondFactors): boolean {
  return factors.totp
}

/** Of a newsroom's members, those with a factor set (Settings → Members shows whom a reset concerns). */
export async function membersWithSecondFactors(tenantId: string): Promise<Set<string>> {
  const totp = await systemDb().totpFactor.findMany({ where: { tenantId, confirmedAt: { not: null } }, select: { userId: true } })
  return new Set(totp.map((row) => row.userId))
}
