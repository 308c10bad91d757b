import type { Metadata } from 'next'
import { ArticleWorkspace } from '@/components/articles/article-workspace'
import { requirePortalUser } from '@/lib/auth/session'

export const metadata: Metadata = { title: 'Edit article' }

type Props = { params: Promise<{ article_id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }

export default async function ArticlePage({ params, searchParams }: Props) {
  const user = await requirePortalUser()
  const [{ article_id: articleId }, search] = await Promise.all([params, searchParams])
  // key: moving to another article starts a fresh editor, never one holding the last article's edits.
  return <ArticleWorkspace key={articleId} articleId={articleId} userId={user.id} role={user.role} justCreated={search.created === '1'} />
}
