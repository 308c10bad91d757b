import type { Metadata } from 'next'
import { redirect } from 'next/navigation'
import { getPortalUser } from '@/lib/auth/session'
import { SignInForm } from '@/components/sign-in-form'

export const metadata: Metadata = { title: 'Sign in' }

export default async function SignInPage() {
  if (await getPortalUser()) redirect('/')
  return (
    <main className="signin card">
      <h1>Sign in to the newsroom</h1>
      {/* The form signs in through next-auth's client, which needs JavaScript: say so rather than show a form that cannot work. */}
      <noscript>
        <p className="alert error" data-testid="noscript-notice">
          Signing in needs JavaScript. Turn JavaScript on for this site in your browser’s settings, then reload this page.
        </p>
      </noscript>
      <SignInForm />
    </main>
  )
}
