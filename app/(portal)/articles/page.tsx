import type { Metadata } from 'next'
import { Suspense } from 'react'
import { ArticleList } from '@/components/articles/article-list'
import { requirePortalUser } from '@/lib/auth/session'

export const metadata: Metadata = { title: 'Articles' }

export default async function ArticlesPage() {
  await requirePortalUser()
  // The list reads its filters from the URL in the browser (useSearchParams).
  return (
    <Suspense fallback={<p role="status">Loading articles…</p>}>
      <ArticleList />
    </Suspense>
  )
}
