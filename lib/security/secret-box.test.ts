import { afterEach, describe, expect, it, vi } from 'vitest'
import { decryptSecret, encryptSecret } from './secret-box.ts'

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('secret box', () => {
  it('round-trips a secret, never storing it in clear, with a fresh IV each time', () => {
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'test-key-for-the-secret-box')
    const secret = 'whsec_this-is-my-secret-ünïcode'
    const first = encryptSecret(secret)
    const second = encryptSecret(secret)
    expect(first).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(first).not.toContain('this-is-my-secret')
    expect(first).not.toBe(second)
    expect(decryptSecret(first)).toBe(secret)
    expect(decryptSecret(second)).toBe(secret)
  })

  it('refuses a tampered ciphertext and a different key', () => {
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'test-key-for-the-secret-box')
    const stored = encryptSecret('0123456789abcdef')
    const [version, iv, tag, ciphertext] = stored.split('.') as [string, string, string, string]
    const flipped = Buffer.from(ciphertext, 'base64url')
    flipped[0] = flipped[0]! ^ 1
    expect(() => decryptSecret([version, iv, tag, flipped.toString('base64url')].join('.'))).toThrow()
    expect(() => decryptSecret('v0.aaa.bbb.ccc')).toThrow(/known format/)
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'another-key')
    expect(() => decryptSecret(stored)).toThrow()
  })
})
