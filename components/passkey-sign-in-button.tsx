'use client'

import { startAuthentication } from '@simplewebauthn/browser'
import { signIn } from 'next-auth/react'
import { useRouter } from 'next/navigation'
import { useState } from 'react'
import { passkeyPromptFailure } from '@/components/passkey-browser'

const passkeyRefused = 'PasskeyRefused:'

/**
 * "Sign in with a passkey" (the button says "Use a passkey", so the password form's "Sign in" stays the one button of that name): a challenge from the server, the browser's prompt listing the
 * passkeys it holds for this site, and next-auth's `passkey` provider, which finds the member
 * by the passkey and starts the session as a password sign-in does. With `pendingToken` it is
 * the second step of a password sign-in, and the passkey must be that member's.
 */
export function PasskeySignInButton({ pendingToken, onExpired }: { pendingToken?: string; onExpired?: () => void } = {}) {
  const router = useRouter()
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)

  async function go() {
    setBusy(true)
    setFailure(null)
    try {
      const optionsResponse = await fetch('/api/passkeys/sign-in-options', { method: 'POST' })
      if (optionsResponse.status === 429) {
        const wait = Number(optionsResponse.headers.get('retry-after')) || 60
        return setFailure(`Too many passkey sign-in attempts from your address. Try again in ${wait} seconds, or use your password.`)
      }
      if (!optionsResponse.ok) return setFailure('Passkey sign-in is unavailable right now. Try again, or use your password.')
      let response
      try {
        response = await startAuthentication({ optionsJSON: await optionsResponse.json() })
      } catch (error) {
        return setFailure(passkeyPromptFailure(error))
      }
      const result = await signIn('passkey', { response: JSON.stringify(response), ...(pendingToken && { pendingToken }), redirect: false })
      if (!result || result.error) {
        const error = result?.error ?? ''
        if (pendingToken && error.includes('expired')) return onExpired?.()
        if (error.startsWith(passkeyRefused)) return setFailure(error.slice(passkeyRefused.length))
        if (error.startsWith('SsoRequired:'))
          return setFailure('Your newsroom signs in with its identity provider (single sign-on). Use the link your newsroom gave you.')
        return setFailure('That passkey did not sign you in. Try again, or use your password.')
      }
      router.replace('/')
      router.refresh()
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="passkey-sign-in">
      {failure && (
        <p role="alert" className="alert error">
          {failure}
        </p>
      )}
      <p>
        <button type="button" className="secondary" onClick={go} disabled={busy}>
          {busy ? 'Waiting for your passkey…' : 'Use a passkey'}
        </button>
      </p>
    </div>
  )
}
