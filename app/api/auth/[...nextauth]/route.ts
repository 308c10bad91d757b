import NextAuth from 'next-auth'
import { authOptions } from '@/lib/auth/auth-options'
import { malformedAuthRequest } from '@/lib/auth/malformed-auth-request'

const nextAuth = NextAuth(authOptions)

// What next-auth would answer 500 to although the client sent it is refused first, with a 4xx.
async function handler(request: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  return (await malformedAuthRequest(request)) ?? nextAuth(request, context)
}

export { handler as GET, handler as POST }
