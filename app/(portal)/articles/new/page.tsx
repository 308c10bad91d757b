import type { Metadata } from 'next'
import { NewArticle } from '@/components/articles/new-article'
import { requirePortalUser } from '@/lib/auth/session'

export const metadata: Metadata = { title: 'New article' }

export default async function NewArticlePage() {
  await requirePortalUser()
  return <NewArticle />
}
