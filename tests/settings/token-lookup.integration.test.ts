import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseInput } from '../../lib/parse-input.ts'
import { createApiTokenSchema } from '../../lib/tokens/api-token-schemas.ts'
import { createApiToken, revokeApiToken } from '../../lib/tokens/api-tokens.ts'
import { tokenRefusal } from '../../lib/tokens/token-bounds.ts'
import { authenticateToken, forgetCachedTokens } from '../../lib/tokens/authenticate-token.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

let newsroom: TestTenant
beforeAll(async () => {
  newsroom = await createTestTenant()
})
afterEach(() => vi.unstubAllEnvs())

const newKey = async (name: string) => createApiToken(newsroom.actor('admin'), parseInput(createApiTokenSchema, { name, scopes: ['articles:read'] }))

describe('looking up API keys', () => {
  it('answers every request waiting on an uncached key from one lookup', async () => {
    const { token, summary } = await newKey('Busy integration')
    forgetCachedTokens()
    const principals = await Promise.all(Array.from({ length: 20 }, () => authenticateToken(token)))
    expect(principals[0]).toMatchObject({ tokenId: summary.id, scopes: ['articles:read'] })
    // One lookup made one principal, which every caller got.
    for (const principal of principals) expect(principal).toBe(principals[0])
  })

  it('does not keep what a lookup read before the cache was cleared, as a revocation clears it', async () => {
    const { token } = await newKey('Cleared while looked up')
    forgetCachedTokens()
    const inFlight = authenticateToken(token)
    // The lookup's query cannot have answered yet: this clearing comes after its read is sent.
    forgetCachedTokens()
    const overtaken = await inFlight
    const next = await authenticateToken(token)
    expect(next?.tokenId).toBe(overtaken?.tokenId)
    expect(next).not.toBe(overtaken)
  })

  it('refuses a revoked key on the next request', async () => {
    const { token, summary } = await newKey('Revoked')
    expect(await authenticateToken(token)).not.toBeNull()
    await revokeApiToken(newsroom.actor('admin'), summary.id)
    // Still found, so its refusals land in its own request log; its bounds refuse it.
    const revoked = await authenticateToken(token)
    expect(revoked?.tokenId).toBe(summary.id)
    expect(tokenRefusal(revoked!.bounds, '127.0.0.1')).toMatchObject({ code: 'unauthenticated', detail: expect.stringMatching(/^This API key was revoked at /) })
  })

  it('looks a key up again once its cached answer expired, not reusing a finished lookup', async () => {
    const { token, summary } = await newKey('Looked up again')
    stubEnv({ TOKEN_CACHE_TTL_MS: '0' })
    const first = await authenticateToken(token)
    const again = await authenticateToken(token)
    expect(again?.tokenId).toBe(summary.id)
    expect(again).not.toBe(first)
  })
})
