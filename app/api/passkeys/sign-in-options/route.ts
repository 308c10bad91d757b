import { passkeySignInOptions } from '@/lib/auth/passkeys'

// The sign-in page's first step of "Sign in with a passkey": a challenge, stored server-side and
// good once for five minutes. POST, so nothing caches or prefetches it.
export async function POST() {
  return Response.json(await passkeySignInOptions(), { headers: { 'Cache-Control': 'no-store' } })
}
