import type { Metadata } from 'next'
import { requirePortalUser } from '@/lib/auth/session'
import { roleArticle } from '@/components/role-words'

export const metadata: Metadata = { title: 'Home' }

export default async function HomePage() {
  const user = await requirePortalUser()
  return (
    <section>
      <h1>Welcome, {user.name}</h1>
      <p className="muted">
        You are signed in to {user.tenantName} as {roleArticle(user.role)} {user.role}.
      </p>
    </section>
  )
}
