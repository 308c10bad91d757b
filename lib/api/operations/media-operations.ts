import type { oas31 } from 'zod-openapi'
import { z } from 'zod'
import { declareOperation, operationPaths, type ProblemCase } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'
import {
  createMediaFromUrlSchema,
  listMediaQuerySchema,
  mediaListSchema,
  mediaPathSchema,
  mediaRecordSchema,
  multipartUploadSchema,
  updateMediaSchema,
} from '../../media/media-schemas.ts'
import { exampleMediaRecord as media } from '../../media/media-example.ts'

export const mediaTags: oas31.TagObject[] = [
  {
    name: 'Media',
    description:
      'The newsroom’s media library: photos with alt text, captions, credits and licence terms, stored once per content hash, served to the public site as signed, immutable renditions (metadata stripped). See the media guide for the limits, the rights rules and the storage settings.',
  },
]


const notFound: ProblemCase = {
  code: 'not_found',
  when: "No image with this id in the token's newsroom.",
  detail: "No media with id 'med_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom.",
}

const forbidden: ProblemCase = {
  code: 'forbidden',
  when: 'A writer’s token changing an image someone else uploaded.',
  detail: 'A writer can change only the images they uploaded; ask an editor to change this one.',
}

const stale: ProblemCase = {
  code: 'precondition_failed',
  when: '`If-Match` names a version that is no longer current.',
  detail: 'The image changed since you read it (it is at version 3); read it again and re-apply your change.',
}

// The store's own 503 (lib/media/storage/s3-media-store.ts), beside the database's that every
// operation declares: an operator reading the document must know which system to look at.
const storeUnavailable: ProblemCase = {
  code: 'service_unavailable',
  name: 'media_store_unavailable',
  when: 'The media store (object storage) is not answering (refused, reset, silent past `MEDIA_S3_TIMEOUT_MS`, or its own 5xx); retry after `Retry-After` seconds.',
  detail: 'The media store (object storage) is not answering right now; retry in a moment.',
}

const mebibyte = 1024 * 1024

// As the articles' operations declare it: the ETag read, so a change or deletion does not land on
// a version someone else made since (412).
const ifMatchHeader = z.object({
  'If-Match': z
    .string()
    .optional()
    .meta({ description: 'The `ETag` you read. If the image has changed since, nothing is changed (or deleted) and the answer is 412.', example: '"2"' }),
})

export const createMediaOperation = declareOperation({
  method: 'POST',
  path: '/v1/media',
  operationId: 'createMedia',
  summary: 'Upload an image',
  tags: ['Media'],
  scope: 'media:write',
  maxBodyBytes: 50 * mebibyte,
  streamedBody: true,
  description: [
    'Adds an image to the library, either as `multipart/form-data` (a `file` part and optional text parts for the fields: `alt_text`, `caption`, `credit`, `copyright`, `source`, `usage_terms`, `embargo_until`, `expires_at`, `focal_x`, `focal_y`, `taken_at`) or as JSON with `source_url` (a wire photo fetched by the service with the rules webhook URLs follow: https, a public address, size-capped, time-limited).',
    '',
    'The type is judged from the bytes: JPEG, PNG, WebP, AVIF and GIF are kept; SVG is refused (it can carry script). Caption, credit, copyright and date taken that the file carries (IPTC, XMP, EXIF) fill the fields you leave empty. The upload streams to storage; uploads beyond the instance’s `LARGE_BODY_CONCURRENCY` wait their turn, and past a bound get 503 with `Retry-After`.',
    '',
    '**Deduplication:** bytes the newsroom already has answer `200` with the existing record (fields you sent are not applied: PATCH it).',
  ].join('\n'),
  requestBody: {
    schema: createMediaFromUrlSchema,
    multipart: multipartUploadSchema,
    examples: { wire: { summary: 'A wire photo by URL', value: { source_url: 'https://wire.example.com/photos/4711.jpg', alt_text: 'Firefighters at the harbour at dusk.', credit: 'Jane Doe / Reuters' } } },
  },
  success: { status: 201, description: 'The new record (`200` with the existing record when the bytes were already in the library).', schema: mediaRecordSchema, headers: ['Location', 'ETag'], examples: { created: { summary: 'An upload', value: { ...media, used_by: [], version: 1 } } } },
  problems: [
    { code: 'payload_too_large', name: 'file_too_large', when: 'The file is larger than `MEDIA_MAX_BYTES` (50 MiB by default); nothing was stored.', detail: 'The file is larger than this newsroom accepts (52,428,800 bytes, MEDIA_MAX_BYTES); nothing was stored.' },
    { code: 'unsupported_image_type', when: 'The bytes are not a JPEG, PNG, WebP, AVIF or GIF (SVG included).', detail: 'The file is not a JPEG, PNG, WebP, AVIF or GIF image (SVG is refused: it can carry script). Nothing was stored.' },
    { code: 'image_unreadable', when: 'The file is corrupt or truncated, or has more pixels than `MEDIA_MAX_PIXELS` (a decompression bomb).', detail: 'The image has 30000×30000 pixels, more than this newsroom accepts (100,000,000, MEDIA_MAX_PIXELS). Nothing was stored.' },
    { code: 'source_url_refused', when: 'The `source_url` is private, slow, too large or did not answer 200.', detail: 'source_url was not fetched: the host wire.example.com resolves to a private, loopback or link-local address (10.0.0.7). Nothing was stored.' },
    { code: 'validation_failed', name: 'invalid_fields', when: 'A field is invalid, or the `file` part is missing.', detail: 'The upload has invalid fields; see errors.', errors: validationErrors(createMediaFromUrlSchema, { source_url: 'ftp://wire.example.com/1.jpg' }) },
    { code: 'service_unavailable', name: 'uploads_busy', when: 'This instance is handling as many large uploads as it may, with a full queue; retry after `Retry-After` seconds.', detail: '34 large requests are being handled by this instance; retry shortly.' },
    storeUnavailable,
  ],
})

export const listMediaOperation = declareOperation({
  method: 'GET',
  path: '/v1/media',
  query: listMediaQuerySchema,
  operationId: 'listMedia',
  summary: 'List the media library',
  tags: ['Media'],
  scope: 'media:read',
  description: [
    'Newest first. Filters: `q` (words in the caption, credit, alt text or file name), `credit`, `created_after` / `created_before`, `rights_expire_before` (licences ending before then), `unused` (`true`: no article uses the image).',
    '',
    '**Paging:** `limit` 1 to 100 (default 30) and `offset`; every page has `next_cursor`: send it back as `cursor` (no `offset`) for the next page.',
  ].join('\n'),
  requestParams: { query: listMediaQuerySchema },
  success: { status: 200, description: 'A page of media records.', schema: mediaListSchema, examples: { page: { summary: 'One image', value: { items: [media], total: 1, limit: 30, offset: 0, next_offset: null, next_cursor: null } } } },
  problems: [{ code: 'validation_failed', when: 'A filter or the cursor is invalid.', detail: 'The request query parameters have invalid fields; see errors.', errors: [{ field: 'unused', message: 'must be true or false.' }] }],
})

export const getMediaOperation = declareOperation({
  method: 'GET',
  path: '/v1/media/{media_id}',
  params: mediaPathSchema,
  operationId: 'getMedia',
  summary: 'Get an image’s record',
  tags: ['Media'],
  scope: 'media:read',
  description: 'The record, with `used_by` (the articles using it) and its URLs. `ETag` is its version: send it as `If-Match` with a PATCH or DELETE.',
  requestParams: { path: mediaPathSchema },
  success: { status: 200, description: 'The record.', schema: mediaRecordSchema, headers: ['ETag'], examples: { image: { summary: 'An image', value: media } } },
  problems: [notFound],
})

export const getMediaOriginalOperation = declareOperation({
  method: 'GET',
  path: '/v1/media/{media_id}/original',
  params: mediaPathSchema,
  operationId: 'getMediaOriginal',
  summary: 'Download the uploaded bytes',
  tags: ['Media'],
  scope: 'media:read',
  description: 'The file exactly as it was uploaded, its metadata included (GPS position, camera serial numbers): never public. Renditions, which are public, carry no metadata.',
  requestParams: { path: mediaPathSchema },
  success: { status: 200, description: 'The bytes, with the image’s `Content-Type` (JPEG, PNG, WebP, AVIF or GIF).', file: 'image/*' },
  problems: [notFound, storeUnavailable],
})

export const updateMediaOperation = declareOperation({
  method: 'PATCH',
  path: '/v1/media/{media_id}',
  params: mediaPathSchema,
  body: updateMediaSchema,
  operationId: 'updateMedia',
  summary: 'Change an image’s fields',
  tags: ['Media'],
  scope: 'media:write',
  description:
    'Changes alt text, caption, credit, copyright, source, rights, focal point or date taken; `null` clears a field. Sends `media.updated`; live articles showing the image have their public pages purged. Writers change only images they uploaded; editors and admins any. `If-Match` with the `ETag` refuses the change (412) if the image changed since you read it.',
  requestParams: { path: mediaPathSchema, header: ifMatchHeader },
  requestBody: { examples: { alt: { summary: 'Alt text and focal point', value: { alt_text: 'Firefighters at the harbour at dusk.', focal_point: { x: 0.62, y: 0.4 } } } } },
  success: { status: 200, description: 'The changed record.', schema: mediaRecordSchema, headers: ['ETag'], examples: { image: { summary: 'Changed', value: media } } },
  problems: [
    notFound,
    forbidden,
    stale,
    { code: 'validation_failed', when: 'A field is invalid.', detail: 'The request body has invalid fields; see errors.', errors: validationErrors(updateMediaSchema, { focal_point: { x: 2, y: 0.5 } }) },
    {
      code: 'media_in_use',
      name: 'alt_text_required_while_live',
      when: 'The change clears the alt text of an image a published article shows.',
      detail: 'Published articles show this image: art_0mhx2k1s9q3v8w4t6y1z2a3b4d. It needs alt text while they do: write a new alt text instead of clearing it, or take the image out of them (or unpublish them) first.',
      extra: { article_ids: ['art_0mhx2k1s9q3v8w4t6y1z2a3b4d'] },
    },
  ],
})

export const deleteMediaOperation = declareOperation({
  method: 'DELETE',
  path: '/v1/media/{media_id}',
  params: mediaPathSchema,
  operationId: 'deleteMedia',
  summary: 'Delete an image',
  tags: ['Media'],
  scope: 'media:write',
  description:
    'Deletes the record and, since nothing else refers to them, its stored bytes and renditions; sends `media.deleted`. Refused with 409 `media_in_use` (naming them in `article_ids`) while a published article shows the image. Writers delete only images they uploaded. `If-Match` with the `ETag` refuses the deletion (412) if the image changed since you read it.',
  requestParams: { path: mediaPathSchema, header: ifMatchHeader },
  success: { status: 204, description: 'Deleted.' },
  problems: [
    notFound,
    { ...forbidden, detail: 'A writer can delete only the images they uploaded; ask an editor to delete this one.', when: 'A writer’s token deleting an image someone else uploaded.' },
    stale,
    { code: 'media_in_use', when: 'A published article shows the image.', detail: 'Published articles show this image: art_0mhx2k1s9q3v8w4t6y1z2a3b4d. Remove it from them (or unpublish them) first.', extra: { article_ids: ['art_0mhx2k1s9q3v8w4t6y1z2a3b4d'] } },
  ],
})

export const mediaOperations = [createMediaOperation, listMediaOperation, getMediaOperation, getMediaOriginalOperation, updateMediaOperation, deleteMediaOperation] as const
export const mediaPaths = operationPaths(mediaOperations)
