'use client'

import { signIn } from 'next-auth/react'
import { useRouter } from 'next/navigation'
import { useState, type FormEvent } from 'react'
import { PasskeySignInButton } from './passkey-sign-in-button'
import { tooManyAttemptsMessage } from '@/components/too-many-attempts'
import { internalSignInErrorMessage } from '@/components/internal-sign-in-error'

/**
 * The second step of signing in: a code from the authenticator app or, after "use a recovery
 * code", one of the ten recovery codes. The pending sign-in behind it lasts five minutes and
 * five wrong codes; then the password is asked again (onRestart). A member with a passkey may
 * answer with it instead; one with only passkeys sees the passkey first, and their recovery
 * codes behind "Use a recovery code" (a lost device is no admin's reset).
 */
export function SecondFactorStep({
  pendingToken,
  withCode,
  withPasskey,
  withRecoveryCode = withCode,
  onRestart,
}: {
  pendingToken: string
  withCode: boolean
  withPasskey: boolean
  withRecoveryCode?: boolean
  onRestart: (why: string) => void
}) {
  const router = useRouter()
  const [recovery, setRecovery] = useState(!withCode && !withPasskey && withRecoveryCode)
  const [showCodeForm, setShowCodeForm] = useState(withCode || (!withPasskey && withRecoveryCode))
  const [code, setCode] = useState('')
  const [failure, setFailure] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!code.trim()) return setFailure(recovery ? 'Enter one of your recovery codes.' : 'Enter the 6-digit code your authenticator app shows.')
    setFailure(null)
    setPending(true)
    const result = await signIn('second-factor', { pendingToken, code, redirect: false })
    setPending(false)
    if (result && !result.error) {
      router.replace('/')
      router.refresh()
      return
    }
    if (result?.error?.startsWith('SecondFactorReused:')) {
      const left = Number(result.error.slice('SecondFactorReused:'.length))
      setCode('')
      setFailure(`That code was already used. Wait for your app to show a new one, then enter it. ${left} ${left === 1 ? 'try' : 'tries'} left.`)
      return
    }
    if (result?.error?.startsWith('SecondFactorWrong:')) {
      const left = Number(result.error.slice('SecondFactorWrong:'.length))
      setCode('')
      setFailure(`That code is not right${recovery ? ', or was used already' : ''}. ${left} ${left === 1 ? 'try' : 'tries'} left.`)
      return
    }
    if (result?.error?.startsWith('TooManySignInAttempts')) return setFailure(tooManyAttemptsMessage(result.error))
    const internal = internalSignInErrorMessage(result?.error)
    if (internal) return setFailure(internal)
    onRestart('That sign-in expired or had too many wrong codes. Enter your e-mail and password again.')
  }

  const passkey = withPasskey && <PasskeySignInButton pendingToken={pendingToken} onExpired={() => onRestart('That sign-in expired. Enter your e-mail and password again.')} />
  if (!showCodeForm)
    return (
      <section aria-label="Second step of signing in">
        <h2>Two-factor sign-in</h2>
        <p className="muted">Confirm with your passkey.</p>
        {passkey}
        {withRecoveryCode && (
          <p>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setRecovery(true)
                setShowCodeForm(true)
              }}
            >
              Use a recovery code
            </button>
          </p>
        )}
      </section>
    )

  return (
    <form method="post" onSubmit={submit} noValidate aria-label="Second step of signing in">
      <h2>Two-factor sign-in</h2>
      {failure && (
        <p role="alert" className="alert error">
          {failure}
        </p>
      )}
      {recovery ? (
        <>
          <label htmlFor="second-factor-code">Recovery code</label>
          <input
            key="recovery"
            id="second-factor-code"
            type="text"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            autoFocus
            placeholder="xxxxx-xxxxx"
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
          <p className="muted">Each recovery code works once.</p>
        </>
      ) : (
        <>
          <label htmlFor="second-factor-code">Code from your authenticator app</label>
          <input
            key="totp"
            id="second-factor-code"
            type="text"
            inputMode="numeric"
            pattern="[0-9 ]*"
            autoComplete="one-time-code"
            autoFocus
            maxLength={7}
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
        </>
      )}
      <p>
        <button type="submit" disabled={pending}>
          {pending ? 'Checking…' : 'Verify'}
        </button>
      </p>
      {(withCode ? withRecoveryCode || recovery : false) && (
        <p>
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setRecovery(!recovery)
              setCode('')
              setFailure(null)
            }}
          >
            {recovery ? 'Use the code from my app' : 'Use a recovery code'}
          </button>
        </p>
      )}
      {passkey}
    </form>
  )
}
