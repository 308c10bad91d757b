import { Readable } from 'node:stream'
import type { ApiRequest } from './api-request.ts'
import { withLargeBodySlot } from './large-body-gate.ts'
import { receiveMediaUpload } from './media-upload-body.ts'
import { portalRequestActor, type PortalRequestActor } from '../auth/portal-request-actor.ts'
import { assertCan } from '../auth/permissions.ts'
import { DomainError, ForbiddenError } from '../errors.ts'
import { createMedia } from '../media/media-library.ts'
import { toMediaRecord } from '../media/media-record.ts'
import { mediaPathSchema } from '../media/media-schemas.ts'
import { parseInput } from '../parse-input.ts'
import { openPortalPreview } from '../media/portal-preview.ts'
import { isPortalRequest } from '../security/same-origin.ts'

async function portalActor(request: ApiRequest): Promise<PortalRequestActor> {
  const actor = await portalRequestActor(request)
  if (!actor) throw new DomainError('unauthenticated', 'Sign in again: your session has ended.')
  return actor
}

/**
 * POST /api/media: the portal's upload (the Media page's drop zone and file input, one request
 * per file so the browser can show each file's progress). The same path as POST /v1/media
 * (readMediaUploadBody streams the file to disk, createMedia keeps it), behind the same large
 * body gate (counting against LARGE_BODY_PER_CLIENT per member), as the signed-in member: `media:write` by their role, the portal header and Origin
 * check (isPortalRequest) keeping other sites out. Refusals are problem+json like /v1's, so
 * the page shows the 413/415/422 sentences as they are.
 */
export async function serveMediaUpload(request: ApiRequest): Promise<Response> {
  if (!isPortalRequest(request)) throw new ForbiddenError('Cross-site request refused.')
  const actor = await portalActor(request)
  assertCan(actor, 'media:write')
  return withLargeBodySlot(async () => {
    const { file, fields } = await receiveMediaUpload(request)
    // The page promises "Nothing was stored" to an editor who cancels: refused if gone before the commit.
    const { media, created } = await createMedia(actor, file, fields, { requester: request.signal })
    return Response.json({ created, media: toMediaRecord(media) }, { status: created ? 201 : 200, headers: { 'Cache-Control': 'no-store' } })
  }, request.signal, `member:${actor.user.id}`)
}

/**
 * GET /api/media/{media_id}/preview?w=320: the image for the portal's own pages, embargoed and
 * expired ones included (openPortalPreview), to a signed-in member with `media:read`. Private:
 * the browser may keep it, a shared cache never; and it asks again on each use (a 304 while it
 * is current), so an image deleted in another tab is not shown from the browser's copy.
 */
export async function serveMediaPreview(request: ApiRequest, mediaId: string): Promise<Response> {
  const actor = await portalActor(request)
  assertCan(actor, 'media:read')
  const { media_id: id } = parseInput(mediaPathSchema, { media_id: mediaId })
  const width = Number(new URL(request.url).searchParams.get('w') ?? 320)
  const { etag, rendition } = await openPortalPreview(actor, id, Number.isFinite(width) ? width : 320, request.headers.get('accept'), request.headers.get('if-none-match'))
  const validation = { ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Accept, Cookie' }
  if (rendition === 'not_modified') return new Response(null, { status: 304, headers: validation })
  if (!rendition) throw new DomainError('not_found', `The image ${id} has no stored bytes.`)
  const body = Buffer.isBuffer(rendition.body) ? new Uint8Array(rendition.body) : (Readable.toWeb(rendition.body) as ReadableStream<Uint8Array>)
  return new Response(body, {
    headers: { 'Content-Type': rendition.contentType, 'Content-Length': String(rendition.bytes), ...validation, 'X-Content-Type-Options': 'nosniff' },
  })
}
