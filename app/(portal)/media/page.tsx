import type { Metadata } from 'next'
import { Suspense } from 'react'
import { MediaLibrary } from '@/components/media/media-library'
import { requirePortalUser } from '@/lib/auth/session'
import { mediaMaxBytes } from '@/lib/media/media-limits'

export const metadata: Metadata = { title: 'Media' }

export default async function MediaPage() {
  await requirePortalUser()
  // Every role has media:read and media:write (lib/tokens/scopes.ts); each procedure checks it.
  return (
    <Suspense fallback={<p role="status">Loading the media library…</p>}>
      <MediaLibrary maxBytes={mediaMaxBytes()} />
    </Suspense>
  )
}
