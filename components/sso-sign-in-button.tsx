'use client'

import { getCsrfToken } from 'next-auth/react'
import { useEffect, useState } from 'react'

/**
 * "Sign in with <provider>": a plain form post to next-auth's sign-in route for the newsroom's
 * provider, which redirects to the provider (next-auth's client signIn() only knows providers
 * its shared list names, and this one is built per request).
 */
export function SsoSignInButton({ slug, displayName }: { slug: string; displayName: string }) {
  const [csrfToken, setCsrfToken] = useState<string | null>(null)
  useEffect(() => {
    void getCsrfToken().then((token) => setCsrfToken(token ?? null))
  }, [])
  return (
    <form method="post" action={`/api/auth/signin/sso-${encodeURIComponent(slug)}`}>
      <input type="hidden" name="csrfToken" value={csrfToken ?? ''} />
      <input type="hidden" name="callbackUrl" value="/" />
      <p>
        <button type="submit" disabled={!csrfToken}>
          Sign in with {displayName}
        </button>
      </p>
    </form>
  )
}
