'use client'

import { zodResolver } from '@hookform/resolvers/zod'
import { internalSignInErrorMessage } from '@/components/internal-sign-in-error'
import { signIn } from 'next-auth/react'
import { useRouter } from 'next/navigation'
import { useEffect, useState } from 'react'
import { SecondFactorStep } from './second-factor-step'
import { useForm } from 'react-hook-form'
import { z } from 'zod'
import { tooManyAttemptsMessage } from '@/components/too-many-attempts'

const signInSchema = z.object({
  email: z.string().trim().email('Enter the e-mail address you were invited with.'),
  password: z.string().min(1, 'Enter your password.'),
})

type SignInValues = z.infer<typeof signInSchema>

export function SignInForm() {
  const router = useRouter()
  const [failure, setFailure] = useState<string | null>(null)
  const [ssoSlug, setSsoSlug] = useState<string | null>(null)
  // Set once the password was right and the member has a second factor: the form becomes the factor step.
  const [pending, setPending] = useState<{ token: string; kinds: string[] } | null>(null)
  // After the identity provider, a newsroom that also asks for the portal's factor sends the
  // browser here with the pending sign-in in the fragment (lib/auth/sso-sign-in.ts), which no
  // server sees; it is taken out of the address bar at once.
  useEffect(() => {
    const fragment = new URLSearchParams(window.location.hash.slice(1))
    const token = fragment.get('second-factor')
    if (!token) return
    // After hydration (the server rendered the password form): the fragment is the browser's alone.
    setTimeout(() => {
      setPending({ token, kinds: (fragment.get('factors') ?? 'totp').split(',') })
      window.history.replaceState(null, '', window.location.pathname + window.location.search)
    }, 0)
  }, [])
  const { register, handleSubmit, formState } = useForm<SignInValues>({
    resolver: zodResolver(signInSchema),
    shouldFocusError: true,
  })

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null)
    setSsoSlug(null)
    const result = await signIn('credentials', { ...values, redirect: false })
    if (result?.error?.startsWith('SecondFactorRequired:')) {
      const [token = '', kinds = 'totp'] = result.error.slice('SecondFactorRequired:'.length).split(':')
      setPending({ token, kinds: kinds.split(',') })
      return
    }
    if (result?.error?.startsWith('SsoRequired:')) {
      setSsoSlug(result.error.slice('SsoRequired:'.length))
      setFailure('Your newsroom signs in with its identity provider (single sign-on); password sign-in is off for you.')
      return
    }
    if (!result || result.error) {
      setFailure(
        internalSignInErrorMessage(result?.error) ??
        (result?.error?.startsWith('TooManySignInAttempts')
          ? tooManyAttemptsMessage(result.error)
          : 'That e-mail and password do not match an active account.'),
      )
      return
    }
    router.replace('/')
    router.refresh()
  })

  if (pending) {
    return (
      <SecondFactorStep
        pendingToken={pending.token}
        withCode={pending.kinds.includes('totp')}
        withPasskey={pending.kinds.includes('passkey')}
        withRecoveryCode={pending.kinds.includes('recovery_code')}
        onRestart={(why) => {
          setPending(null)
          setFailure(why)
        }}
      />
    )
  }

  return (
    <form method="post" onSubmit={onSubmit} noValidate>
      {failure && (
        <p role="alert" className="alert error">
          {failure}
          {ssoSlug && (
            <>
              {' '}
              <a href={`/signin?newsroom=${encodeURIComponent(ssoSlug)}`}>Sign in with single sign-on</a>
            </>
          )}
        </p>
      )}
      <label htmlFor="email">E-mail</label>
      <input id="email" type="email" autoComplete="username" autoFocus aria-invalid={!!formState.errors.email} aria-describedby="email-error" {...register('email')} />
      {formState.errors.email && <p id="email-error" className="field-error">{formState.errors.email.message}</p>}
      <label htmlFor="password">Password</label>
      <input id="password" type="password" autoComplete="current-password" aria-invalid={!!formState.errors.password} aria-describedby="password-error" {...register('password')} />
      {formState.errors.password && <p id="password-error" className="field-error">{formState.errors.password.message}</p>}
      <p>
        <button type="submit" disabled={formState.isSubmitting}>
          {formState.isSubmitting ? 'Signing in…' : 'Sign in'}
        </button>
      </p>
    </form>
  )
}
