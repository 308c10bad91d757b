import { createMediaOperation, listMediaOperation } from '@/lib/api/operations/media-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { withLargeBodySlot } from '@/lib/api/large-body-gate'
import { completeMediaUpload, readMediaUploadBody, uploadIdentity } from '@/lib/api/media-upload-body'
import { mediaMaxBytes } from '@/lib/media/media-limits'
import { mediaHeaders } from '@/lib/api/resource-headers'
import { createMedia, listMedia } from '@/lib/media/media-library'
import { toMediaRecord } from '@/lib/media/media-record'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listMediaOperation, async ({ actor, query }) => {
    return jsonResponse(pageRecord(await listMedia(actor, query), toMediaRecord))
  }),
  // An upload is a large body: it waits for a slot of the same gate as bulk imports (503 past its
  // bound, or past LARGE_BODY_PER_CLIENT for this token). A source_url's fetch waits on another server, not on this process: outside the slot.
  // An Idempotency-Key is bound to what the body turned out to be (once, after reading it).
  POST: withApi(createMediaOperation, ({ actor, principal, request, once }) =>
    withLargeBodySlot(async () => {
      const upload = await readMediaUploadBody(request, mediaMaxBytes())
      try {
        return await once(uploadIdentity(upload), async () => {
          const { file, fields } = await completeMediaUpload(upload)
          const { media, created } = await createMedia(actor, file, fields)
          return jsonResponse(toMediaRecord(media), { status: created ? 201 : 200, headers: mediaHeaders(media, { location: created }) })
        })
      } finally {
        // A replayed answer never reached createMedia, which discards what it keeps.
        if (upload.kind === 'file') await upload.file.discard()
      }
    }, request.signal, `token:${principal.tokenId}`),
  ),
})
