'use client'

import { getCsrfToken } from 'next-auth/react'
import { useState } from 'react'

/**
 * "Sign in with <provider>". next-auth's client signIn() only knows the providers of its shared
 * list, and this one is built per request, so the button asks next-auth's sign-in route for the
 * provider's address itself (`json: true`, as signIn() does) and goes there. A plain form post
 * would not do: the portal's `form-action 'self'` forbids a form to redirect to another site.
 */
export function SsoSignInButton({ slug, displayName }: { slug: string; displayName: string }) {
  const [state, setState] = useState<'idle' | 'going' | 'failed'>('idle')
  const go = async () => {
    setState('going')
    try {
      const csrfToken = await getCsrfToken()
      const response = await fetch(`/api/auth/signin/sso-${encodeURIComponent(slug)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken: csrfToken ?? '', callbackUrl: `${window.location.origin}/`, json: 'true' }),
      })
      const { url } = (await response.json()) as { url?: string }
      if (!url) throw new Error('no address')
      window.location.assign(url)
    } catch {
      setState('failed')
    }
  }
  return (
    <>
      {state === 'failed' && (
        <p role="alert" className="alert error">
          Your newsroom’s identity provider could not be reached. Try again, or ask your IT department.
        </p>
      )}
      <p>
        <button type="button" onClick={go} disabled={state === 'going'}>
          {state === 'going' ? 'Going to your identity provider…' : `Sign in with ${displayName}`}
        </button>
      </p>
    </>
  )
}
