import { Readable } from 'node:stream'
import { getMediaOriginalOperation } from '@/lib/api/operations/media-operations'
import { apiRoute, withApi } from '@/lib/api/with-api'
import { contentDisposition } from '@/lib/api/resource-headers'
import { openOriginal } from '@/lib/media/media-library'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  // The upload as it came, metadata included: private (media:read), streamed from the store.
  GET: withApi(getMediaOriginalOperation, async ({ actor, params }) => {
    const { media, body, bytes } = await openOriginal(actor, params.media_id)
    return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, {
      status: 200,
      headers: {
        'Content-Type': media.contentType,
        'Content-Length': String(bytes),
        'Content-Disposition': contentDisposition('inline', media.filename),
        'Cache-Control': 'private, no-store',
        ETag: `"${media.sha256}"`,
        'X-Content-Type-Options': 'nosniff',
      },
    })
  }),
})
