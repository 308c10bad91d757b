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
      <SignInForm />
    </main>
  )
}
