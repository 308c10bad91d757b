import { withRouteFailures } from '@/lib/api/failure'
import NextAuth from 'next-auth'
import { authOptionsFor } from '@/lib/auth/auth-options'
import { malformedAuthRequest } from '@/lib/auth/malformed-auth-request'
import { ssoFailureRedirect } from '@/lib/auth/sso-sign-in'
import { clientAddress } from '@/lib/security/client-address'

// What next-auth would answer 500 to although the client sent it is refused first, with a 4xx.
// The options are built per request (next-auth's advanced initialization), so a sign-in through
// a newsroom's identity provider finds that newsroom's provider (auth-options.ts).
const handler = withRouteFailures('sign-in', async (request: Request, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> => {
  const malformed = await malformedAuthRequest(request)
  if (malformed) return malformed
  const [, providerId] = (await context.params).nextauth ?? []
  const options = await authOptionsFor(providerId, { userAgent: request.headers.get('user-agent'), address: clientAddress(request.headers.get('x-forwarded-for')), cookie: request.headers.get('cookie') })
  const response = (await NextAuth(request as never, context, { ...options })) as Response
  // A refused answer from a newsroom's provider goes back to that newsroom's sign-in page.
  const back = ssoFailureRedirect(providerId, response.headers.get('location'))
  if (back) response.headers.set('location', back)
  return response
})

export { handler as GET, handler as POST }
