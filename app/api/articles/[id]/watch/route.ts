import { serveArticleWatch } from '@/lib/articles/watch-article-route'

// The open article page's awareness poll (lib/articles/watch-article-route.ts).
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  return serveArticleWatch(request, (await params).id)
}
