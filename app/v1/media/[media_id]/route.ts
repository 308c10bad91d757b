import { deleteMediaOperation, getMediaOperation, updateMediaOperation } from '@/lib/api/operations/media-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { expectedVersionFromIfMatch, mediaHeaders } from '@/lib/api/resource-headers'
import { deleteMedia, getMedia, updateMedia } from '@/lib/media/media-library'
import { toMediaRecord } from '@/lib/media/media-record'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(getMediaOperation, async ({ actor, params }) => {
    const media = await getMedia(actor, params.media_id)
    return jsonResponse(toMediaRecord(media), { headers: mediaHeaders(media) })
  }),
  PATCH: withApi(updateMediaOperation, async ({ actor, params, body, request }) => {
    const media = await updateMedia(actor, params.media_id, body, { expectedVersion: expectedVersionFromIfMatch(request.headers.get('if-match')) })
    return jsonResponse(toMediaRecord(media), { headers: mediaHeaders(media) })
  }),
  DELETE: withApi(deleteMediaOperation, async ({ actor, params, request }) => {
    await deleteMedia(actor, params.media_id, { expectedVersion: expectedVersionFromIfMatch(request.headers.get('if-match')) })
    return new Response(null, { status: 204 })
  }),
})
