import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { docsDirectory } from '@/components/guides/guide-files'

// The guides' screenshots (docs/screenshots), served beside the guides that show them.
export async function GET(_request: Request, { params }: { params: Promise<{ file: string }> }) {
  const { file } = await params
  if (!/^[a-z0-9-]+\.png$/.test(file)) return new Response('Not found', { status: 404 })
  try {
    const bytes = await readFile(path.join(docsDirectory, 'screenshots', file))
    return new Response(new Uint8Array(bytes), { headers: { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=3600' } })
  } catch {
    return new Response('Not found', { status: 404 })
  }
}
