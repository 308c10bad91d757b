/**
 * The scrypt hashes the code under test starts (recovery codes: 16 MB and tens of milliseconds of
 * CPU each), counted around the real `node:crypto` scrypt, which still does the work. A test file
 * installs it before anything imports `node:crypto`:
 *
 *   const { scryptCalls, countingScrypt } = await vi.hoisted(() => import('../support/scrypt-calls.ts'))
 *   vi.mock('node:crypto', countingScrypt)
 */
type NodeCrypto = typeof import('node:crypto')

export const scryptCalls = { count: 0 }

export async function countingScrypt(importOriginal: () => Promise<unknown>): Promise<NodeCrypto & { default: NodeCrypto }> {
  const actual = (await importOriginal()) as NodeCrypto
  const scrypt = ((...args: unknown[]) => {
    scryptCalls.count += 1
    return (actual.scrypt as (...a: unknown[]) => void)(...args)
  }) as NodeCrypto['scrypt']
  return { ...actual, scrypt, default: { ...actual, scrypt } }
}
