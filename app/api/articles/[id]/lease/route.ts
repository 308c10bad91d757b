import { serveEditLeaseAsk } from '@/lib/articles/edit-lease-route'

// The article page's ask for its edit lease (lib/articles/edit-lease-route.ts).
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  return serveEditLeaseAsk(request, (await params).id)
}
