import { createHash, randomBytes, scrypt } from 'node:crypto'
import { promisify } from 'node:util'
import type { Prisma } from '../db/generated/client.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { toBase32 } from './totp.ts'

// Recovery codes stand in for whatever second factor a member has (an authenticator app,
// passkeys): made when the first factor is added, used once each at sign-in, gone with the
// last factor. Only their hashes are kept; the plaintext is in one answer, shown once.

type Member = Actor & { user: NonNullable<Actor['user']> }

export const recoveryCodeCount = 10

const scryptAsync = promisify(scrypt) as (password: string, salt: string, length: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>

/**
 * A code's stored form: scrypt, salted with its member. A code has 50 random bits, which a
 * copy of the table tried at SHA-256's speed gives away (all codes of all members at once,
 * unsalted) in about a day on one GPU; salted, each member's must be searched on its own, and
 * scrypt's 16 MB and tens of milliseconds a try make that search out of reach. One hash per sign-in attempt,
 * which the sign-in throttle already bounds; computed off the event loop.
 */
export async function hashRecoveryCode(code: string, userId: string): Promise<string> {
  const hash = await scryptAsync(normaliseRecoveryCode(code), `newsroom recovery code\0${userId}`, 32, { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
  return `scrypt$${hash.toString('hex')}`
}

/** How codes issued before were stored (a plain SHA-256); still accepted, until the member's codes are next replaced. */
export function legacyRecoveryCodeHash(code: string): string {
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

/**
 * A transaction's client: Prisma's has no `$connect`/`$disconnect` (the pool, the full client,
 * has). Typed so the pool does not fit: the member's factor lock lasts only as long as the
 * transaction whose client takes it, and on the pool that is the one statement.
 */
export type RecoveryCodeWriter = {
  $connect?: never
  $disconnect?: never
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>
  recoveryCode: {
    deleteMany(args: Prisma.RecoveryCodeDeleteManyArgs): PromiseLike<unknown>
    createMany(args: Prisma.RecoveryCodeCreateManyArgs): PromiseLike<unknown>
  }
}

/**
 * One member's second factors and recovery codes change one transaction at a time: two tabs
 * that make new codes at once (or add two factors at once) each deleted what they saw and
 * inserted ten, leaving twenty live codes; codes made while another tab removed the last
 * factor outlived it (break53, break54). A transaction-scoped advisory lock on the member, not
 * a lock on their users row: a passkey's insert holds that row FOR KEY SHARE (its foreign key)
 * and an admin's reset updates it, so FOR UPDATE there deadlocked with both. Every change of a
 * member's factors or codes takes this lock first.
 */
export async function lockMembersFactors(tx: RecoveryCodeWriter, userId: string): Promise<void> {
  // Past the type (a cast, an untyped caller): on the pool the lock would be released as soon as
  // taken and serialise nothing, silently (sec55).
  if (typeof (tx as { $disconnect?: unknown }).$disconnect === 'function') throw new Error('lockMembersFactors needs a transaction\'s client: on the pool its lock ends with its own statement')
  await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(${`second factors:${userId}`}, 0))) AS taken`
}

/** New codes with their hashes, made before any lock or transaction: the hashing (ten scrypts) is the slow part. */
export type PreparedRecoveryCodes = { userId: string; codes: string[]; hashes: string[] }

/**
 * Ten new codes and their scrypt hashes, for `replaceRecoveryCodes` to write. Made first, outside
 * the member's factor lock and any transaction: the codes depend on nothing the lock guards, and
 * ten scrypts under it made the member's other tabs and an admin's reset queue behind the hashing
 * (sec55: a second tab's regeneration outlived its transaction's 5 s on a busy machine).
 */
export async function prepareRecoveryCodes(userId: string): Promise<PreparedRecoveryCodes> {
  const codes = newRecoveryCodes()
  return { userId, codes, hashes: await Promise.all(codes.map((code) => hashRecoveryCode(code, userId))) }
}

/**
 * Replaces the member's codes with `prepared` (hashed by prepareRecoveryCodes before the caller's
 * transaction); without it the codes are hashed here, under the caller's lock if it holds one.
 */
export async function replaceRecoveryCodes(tx: RecoveryCodeWriter, member: Member, prepared?: PreparedRecoveryCodes): Promise<string[]> {
  if (prepared && prepared.userId !== member.user.id) throw new Error('recovery codes prepared for another member')
  const { codes, hashes } = prepared ?? (await prepareRecoveryCodes(member.user.id))
  await lockMembersFactors(tx, member.user.id)
  await tx.recoveryCode.deleteMany({ where: { userId: member.user.id } })
  await tx.recoveryCode.createMany({ data: hashes.map((codeHash) => ({ id: createId('rcv'), tenantId: member.tenant.id, userId: member.user.id, codeHash })) })
  return codes
}

/**
 * A factor was just added (inside its transaction): a member who has no unused recovery code
 * (their first factor, or all used up) gets ten, returned to be shown once; else null, and the
 * codes they have keep working. `prepared`: codes hashed before the transaction by a caller that
 * saw none; if the member turns out to have none after all, they are hashed here.
 */
export async function issueRecoveryCodesIfNone(
  tx: RecoveryCodeWriter & { recoveryCode: { count(args: Prisma.RecoveryCodeCountArgs): PromiseLike<number> } },
  member: Member,
  prepared?: PreparedRecoveryCodes | null,
): Promise<string[] | null> {
  await lockMembersFactors(tx, member.user.id)
  if ((await tx.recoveryCode.count({ where: { userId: member.user.id, usedAt: null } })) > 0) return null
  return replaceRecoveryCodes(tx, member, prepared ?? undefined)
}
