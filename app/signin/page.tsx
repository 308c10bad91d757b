import type { Metadata } from 'next'
import { redirect } from 'next/navigation'
import { getPortalUser } from '@/lib/auth/session'
import { ssoSignInOption } from '@/lib/auth/sso-connection'
import { passkeyAvailability } from '@/lib/auth/passkeys'
import { SignInForm } from '@/components/sign-in-form'
import { SsoSignInButton } from '@/components/sso-sign-in-button'
import { PasskeySignInButton } from '@/components/passkey-sign-in-button'

export const metadata: Metadata = { title: 'Sign in' }

/** What a refused sign-in through the identity provider means to the person who tried. */
const ssoRefusals: Record<string, string> = {
  SsoUnknownMember: 'Your identity provider signed you in, but that e-mail address is not a member of this newsroom. Ask one of its admins to add you.',
  SsoDeactivated: 'Your account in this newsroom is deactivated. Ask one of its admins.',
  SsoEmailUnverified: 'Your identity provider did not confirm that your e-mail address is verified, so it cannot identify you here. Ask your IT department.',
  SsoWrongIssuer: 'The answer did not come from the identity provider this newsroom set up. Ask your IT department.',
  OAuthCallback: 'The sign-in with your identity provider could not be verified (it expired, was started in another browser, or was altered). Try again.',
  OAuthSignin: 'Your newsroom’s identity provider could not be reached. Try again, or ask your IT department.',
  AccessDenied: 'Sign-in was refused.',
  SignInOvertaken: 'Your sign-in methods changed, or your sessions were ended, while you were signing in. Sign in again.',
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await getPortalUser()) redirect('/')
  const params = await searchParams
  const newsroom = typeof params.newsroom === 'string' ? params.newsroom : null
  const error = typeof params.error === 'string' ? params.error : null
  const sso = newsroom ? await ssoSignInOption(newsroom) : null
  const refusal = error ? (ssoRefusals[error] ?? null) : null
  const passkeys = passkeyAvailability()
  return (
    <main className="signin card">
      <h1>Sign in to {sso ? sso.newsroom : 'the newsroom'}</h1>
      {/* The form signs in through next-auth's client, which needs JavaScript: say so rather than show a form that cannot work. */}
      <noscript>
        <p className="alert error" data-testid="noscript-notice">
          Signing in needs JavaScript. Turn JavaScript on for this site in your browser’s settings, then reload this page.
        </p>
      </noscript>
      {refusal && (
        <p role="alert" className="alert error">
          {refusal}
        </p>
      )}
      {newsroom && !sso && <p className="alert error">This newsroom has no single sign-on set up. Sign in with your e-mail and password.</p>}
      {sso?.unavailable && (
        <p className="alert error" data-testid="sso-unavailable">
          {sso.unavailable}
        </p>
      )}
      {sso && (
        <>
          {!sso.unavailable && <SsoSignInButton slug={sso.slug} displayName={sso.displayName} />}
          <p className="muted">Or, if your newsroom allows it, with your e-mail and password:</p>
        </>
      )}
      <SignInForm />
      {/* At an address browsers refuse passkeys for (an IP, plain http), the button could only fail. */}
      {passkeys.available && (
        <>
          <h2 className="signin-alternative">Sign in with a passkey</h2>
          <p className="muted">If you added a passkey in Settings → Security, your device’s screen lock signs you in without a password.</p>
          <PasskeySignInButton />
        </>
      )}
    </main>
  )
}
