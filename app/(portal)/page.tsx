import type { Metadata } from 'next'
import { requirePortalUser } from '@/lib/auth/session'
import { roleArticle } from '@/components/role-words'
import { Desk } from '@/components/desk/desk'

export const metadata: Metadata = { title: 'Home' }

export default async function HomePage() {
  const user = await requirePortalUser()
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Your desk</h1>
      <p className="muted">
        {user.name}, {roleArticle(user.role)} {user.role} at {user.tenantName}.
      </p>
      <Desk userId={user.id} />
    </section>
  )
}
