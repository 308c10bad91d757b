import { createMediaOperation, listMediaOperation } from '@/lib/api/operations/media-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { outsideLargeBodySlot, withLargeBodySlot } from '@/lib/api/large-body-gate'
import { readMediaUploadBody } from '@/lib/api/media-upload-body'
import { mediaHeaders } from '@/lib/api/resource-headers'
import { createMedia, listMedia } from '@/lib/media/media-library'
import { fetchSourceUrl, filenameFromUrl } from '@/lib/media/fetch-source-url'
import { mediaMaxBytes } from '@/lib/media/media-limits'
import { toMediaRecord } from '@/lib/media/media-record'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listMediaOperation, async ({ actor, query }) => {
    return jsonResponse(pageRecord(await listMedia(actor, query), toMediaRecord))
  }),
  // An upload is a large body: it waits for a slot of the same gate as bulk imports (503 past its
  // bound). A source_url's fetch waits on another server, not on this process: outside the slot.
  POST: withApi(createMediaOperation, ({ actor, request }) =>
    withLargeBodySlot(async () => {
      const upload = await readMediaUploadBody(request, mediaMaxBytes())
      const { file, fields } =
        upload.kind === 'file'
          ? upload
          : { file: await outsideLargeBodySlot(() => fetchSourceUrl(upload.input.source_url, mediaMaxBytes())), fields: { ...upload.input, filename: upload.input.filename ?? filenameFromUrl(upload.input.source_url) } }
      const { media, created } = await createMedia(actor, file, fields)
      return jsonResponse(toMediaRecord(media), { status: created ? 201 : 200, headers: mediaHeaders(media, { location: created }) })
    }),
  ),
})
