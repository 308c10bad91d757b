import { consumeTokenRequest } from '../lib/api/rate-limit.ts'
import { authenticateToken, touchToken } from '../lib/tokens/authenticate-token.ts'
import { hasScope } from '../lib/tokens/scopes.ts'

/**
 * What authentication, the scope check and the rate limit cost one request, measured in
 * process over many iterations (a cached token, as in steady traffic) against an empty loop.
 */
export async function measureAuthOverhead(token: string, iterations = 20_000): Promise<{ microsecondsPerRequest: number; iterations: number; store: string }> {
  const principal = await authenticateToken(token)
  if (!principal) throw new Error('bench token did not authenticate')
  const once = async () => {
    const found = await authenticateToken(token)
    const decision = await consumeTokenRequest(found!.tokenId, found!.tenant.plan)
    touchToken(found!.tokenId)
    return decision.allowed && hasScope(found!.scopes, 'articles:read')
  }
  for (let i = 0; i < 2_000; i++) await once()
  const emptyStarted = performance.now()
  for (let i = 0; i < iterations; i++) await Promise.resolve(true)
  const empty = performance.now() - emptyStarted
  const started = performance.now()
  for (let i = 0; i < iterations; i++) await once()
  const elapsed = performance.now() - started - empty
  return { microsecondsPerRequest: Math.round((elapsed / iterations) * 1000 * 10) / 10, iterations, store: process.env.REDIS_URL ? 'redis' : 'memory' }
}
