import { withRouteFailures } from '@/lib/api/failure'
import { passkeySignInOptions } from '@/lib/auth/passkeys'
import { consumePasskeySignInOptions, rateLimitHeaders } from '@/lib/api/rate-limit'
import { clientAddress } from '@/lib/security/client-address'

// The sign-in page's first step of "Sign in with a passkey": a challenge, stored server-side and
// good once for five minutes. POST, so nothing caches or prefetches it. Anyone may ask, so each
// address has a budget of its own (RATE_LIMIT_PASSKEY_OPTIONS_PER_MINUTE, 10 by default): a page
// asks once per sign-in, a script asking in a loop would fill the challenges table.
export const POST = withRouteFailures('passkey sign-in options', async (request: Request) => {
  const decision = await consumePasskeySignInOptions(clientAddress(request.headers.get('x-forwarded-for')))
  if (!decision.allowed) {
    return Response.json(
      { error: { code: 'rate_limited', message: `Too many passkey sign-in attempts from your address. Try again in ${decision.retryAfterSeconds} seconds.` } },
      { status: 429, headers: { ...rateLimitHeaders(decision), 'Cache-Control': 'no-store' } },
    )
  }
  return Response.json(await passkeySignInOptions(), { headers: { 'Cache-Control': 'no-store' } })
})
