import { Readable } from 'node:stream'
import { apiRoute, errorResponse } from '@/lib/api/with-api'
import { problemResponse } from '@/lib/api/problem'
import { createId } from '@/lib/ids'
import { openRendition } from '@/lib/media/render-rendition'
import { mediaSurrogateKey } from '@/lib/media/media-purges'
import { newsroomSurrogateKey } from '@/lib/content/surrogate-keys'
import { isLibraryMediaId } from '@/lib/media/media-ids'
import { renditionCacheControl } from '@/lib/media/renditions'

// Public on purpose: the site's <img> tags load these without a key. The signed name is the
// credential (nobody can ask for a size or crop the service did not offer), and it names the
// image's content hash and focal point, so a URL always means the same bytes: cached for a year.
const notFoundHeaders = { 'Cache-Control': 'public, max-age=60', Vary: 'Accept' }

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: async (request, context) => {
    const requestId = createId('req')
    try {
      const { media_id, variant, signature } = (await context.params) as { media_id: string; variant: string; signature: string }
      // Anyone may send anything here: an id that is not one the library makes is no image, asked
      // of nobody (a NUL byte is a database error; U+202E cannot go in the Surrogate-Key header).
      if (!isLibraryMediaId(media_id)) {
        return problemResponse({ code: 'not_found', detail: 'No such rendition: the URL is not one the service signed.' }, requestId, notFoundHeaders)
      }
      const rendition = await openRendition(media_id, variant, signature, request.headers.get('accept'))
      if (!rendition) {
        return problemResponse({ code: 'not_found', detail: 'No such rendition: the URL is not one the service signed, names an older version of the image, or the image is withheld (embargo, expired licence) or deleted.' }, requestId, { ...notFoundHeaders, 'Surrogate-Key': mediaSurrogateKey(media_id), 'Cache-Tag': mediaSurrogateKey(media_id) })
      }
      const keys = `${mediaSurrogateKey(media_id)} ${newsroomSurrogateKey(rendition.tenantId)}`
      const body = Buffer.isBuffer(rendition.body) ? new Uint8Array(rendition.body) : (Readable.toWeb(rendition.body) as ReadableStream<Uint8Array>)
      return new Response(body, {
        status: 200,
        headers: {
          'Content-Type': rendition.contentType,
          'Content-Length': String(rendition.bytes),
          'Cache-Control': renditionCacheControl(rendition.showUntil ?? null),
          Vary: 'Accept',
          'Surrogate-Key': keys,
          'Cache-Tag': keys.replaceAll(' ', ','),
          'X-Content-Type-Options': 'nosniff',
          'X-Request-Id': requestId,
        },
      })
    } catch (error) {
      return errorResponse(error, requestId, { 'Cache-Control': 'no-store' })
    }
  },
})
