import { createMediaOperation, listMediaOperation } from '@/lib/api/operations/media-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { withLargeBodySlot } from '@/lib/api/large-body-gate'
import { receiveMediaUpload } from '@/lib/api/media-upload-body'
import { mediaHeaders } from '@/lib/api/resource-headers'
import { createMedia, listMedia } from '@/lib/media/media-library'
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
      const { file, fields } = await receiveMediaUpload(request)
      const { media, created } = await createMedia(actor, file, fields)
      return jsonResponse(toMediaRecord(media), { status: created ? 201 : 200, headers: mediaHeaders(media, { location: created }) })
    }),
  ),
})
