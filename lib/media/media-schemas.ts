import { z } from 'zod'
import { withoutNul } from '../validation.ts'

// The single source of the media API's shapes: validation, TypeScript types and the OpenAPI
// document all come from these schemas. Plain data and zod only: the portal imports them too.

// Years 0001 to 9999 in UTC: the ISO format takes year 0000, and an offset may carry
// 9999-12-31 into year 10000, which the database driver cannot write (22008, a 500).
const timestamp = z.iso.datetime({ offset: true }).refine((value) => {
  const year = new Date(value).getUTCFullYear()
  return year >= 1 && year <= 9999
}, 'must be a date-time between the years 0001 and 9999 (UTC).')
const mediaIdExample = 'med_0mhx2k1s9q3v8w4t6y1z2a3b4c'

export const mediaIdSchema = withoutNul(z.string().min(1).max(200)).meta({ description: 'The media id.', example: mediaIdExample })
export const mediaPathSchema = z.object({ media_id: mediaIdSchema })

const optionalText = (field: string, max: number, description: string) =>
  withoutNul(z.string({ error: `${field} must be a string.` }).trim().max(max, `${field} must be at most ${max.toLocaleString('en-US')} characters.`))
    .nullable()
    .optional()
    .meta({ description })

const when = (field: string, description: string) => z.union([timestamp, z.null()], { error: `${field} must be an ISO 8601 date-time with an offset, or null.` }).optional().meta({ description })

export const focalPointSchema = z
  .strictObject({
    x: z.number({ error: 'focal_point.x must be a number.' }).min(0, 'focal_point.x must be 0 to 1.').max(1, 'focal_point.x must be 0 to 1.'),
    y: z.number({ error: 'focal_point.y must be a number.' }).min(0, 'focal_point.y must be 0 to 1.').max(1, 'focal_point.y must be 0 to 1.'),
  })
  .meta({ id: 'FocalPoint', description: 'The point crops keep in view, as fractions of the width and height from the top left (0.5, 0.5 is the centre).', example: { x: 0.5, y: 0.4 } })

export const mediaRightsInputSchema = z
  .strictObject({
    usage_terms: optionalText('rights.usage_terms', 2_000, 'The licence terms, as agreed with the agency or photographer.'),
    embargo_until: when('rights.embargo_until', 'Until this instant the image may not be published.'),
    expires_at: when('rights.expires_at', 'The licence ends at this instant: the content API withholds the image from then on.'),
  })
  .meta({ id: 'MediaRightsInput' })

/** The editable fields of a media record (PATCH, and the metadata sent with an upload). */
export const mediaFieldsShape = {
  alt_text: optionalText('alt_text', 1_000, 'What the image shows, for readers who cannot see it. Required before an article using the image can be published.'),
  caption: optionalText('caption', 2_000, 'The caption shown with the image.'),
  credit: optionalText('credit', 300, 'Who took or supplied the image (e.g. "Jane Doe / Reuters").'),
  copyright: optionalText('copyright', 300, 'The copyright holder.'),
  source: optionalText('source', 300, 'Where the image came from (an agency, a wire feed, staff).'),
  rights: mediaRightsInputSchema.optional(),
  focal_point: focalPointSchema.optional(),
  taken_at: when('taken_at', 'When the photograph was taken.'),
}

export const updateMediaSchema = z.strictObject(mediaFieldsShape).meta({ id: 'UpdateMedia', description: 'The fields to change; the others keep their values. `null` clears a field.' })
export type UpdateMediaInput = z.infer<typeof updateMediaSchema>

export const maxSourceUrlLength = 2_048

export const createMediaFromUrlSchema = z
  .strictObject({
    source_url: withoutNul(z.string({ error: 'source_url must be a string.' }).trim().min(1, 'source_url must not be empty.').max(maxSourceUrlLength, `source_url must be at most ${maxSourceUrlLength} characters.`))
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'source_url must be an absolute https URL.')
      .meta({ description: 'Where to fetch the image (a wire photo): https, a public address, answered within the time limit and under the size limit.', example: 'https://wire.example.com/photos/4711.jpg' }),
    filename: optionalText('filename', 255, 'The name to keep; default: the last segment of the URL.'),
    ...mediaFieldsShape,
  })
  .meta({ id: 'CreateMediaFromUrl' })
export type CreateMediaFromUrlInput = z.infer<typeof createMediaFromUrlSchema>

/** The fields of a multipart upload besides `file`: each a text part; `rights` and `focal_point` as their flat names. */
export const multipartFieldsSchema = z.strictObject({
  alt_text: mediaFieldsShape.alt_text,
  caption: mediaFieldsShape.caption,
  credit: mediaFieldsShape.credit,
  copyright: mediaFieldsShape.copyright,
  source: mediaFieldsShape.source,
  usage_terms: optionalText('usage_terms', 2_000, 'rights.usage_terms'),
  embargo_until: timestamp.optional(),
  expires_at: timestamp.optional(),
  focal_x: z.coerce.number().min(0).max(1).optional(),
  focal_y: z.coerce.number().min(0).max(1).optional(),
  taken_at: timestamp.optional(),
})

export const multipartUploadSchema = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'The image: JPEG, PNG, WebP, AVIF or GIF, at most MEDIA_MAX_BYTES (50 MiB by default).' }),
    ...multipartFieldsSchema.shape,
  })
  .meta({ id: 'MediaUpload' })

export const maxMediaPageSize = 100

const booleanQuery = z.enum(['true', 'false'], { error: 'must be true or false.' }).transform((value) => value === 'true')

export const listMediaQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int('limit must be a whole number.').min(1, `limit must be 1 to ${maxMediaPageSize}.`).max(maxMediaPageSize, `limit must be 1 to ${maxMediaPageSize}.`).default(30),
    offset: z.coerce.number().int('offset must be a whole number.').min(0, 'offset must be 0 or more.').max(10_000_000).default(0),
    cursor: withoutNul(z.string().min(1).max(1_024)).optional().meta({ description: "The previous page's `next_cursor`. Not with `offset`." }),
    q: withoutNul(z.string().trim().min(1).max(200)).optional().meta({ description: 'Words found in the caption, credit, alt text or file name (case-insensitive).' }),
    credit: withoutNul(z.string().trim().min(1).max(300)).optional().meta({ description: 'Only media whose credit contains this (case-insensitive).' }),
    created_after: timestamp.optional(),
    created_before: timestamp.optional(),
    rights_expire_before: timestamp.optional().meta({ description: 'Only media whose licence ends before this instant.' }),
    unused: booleanQuery.optional().meta({ description: '`true`: only media no article uses; `false`: only media some article uses.' }),
  })
  .meta({ id: 'ListMediaQuery' })
export type ListMediaQuery = z.infer<typeof listMediaQuerySchema>

const renditionSchema = z
  .object({ width: z.number().int(), height: z.number().int(), crop: z.enum(['1x1', '4x3', '16x9']).nullable().meta({ description: 'null: the image’s own shape; otherwise an aspect-ratio crop around the focal point.' }), url: z.string() })
  .meta({ id: 'MediaRendition' })

export const mediaRecordSchema = z
  .object({
    media_id: z.string().meta({ example: mediaIdExample }),
    content_type: z.enum(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif']),
    filename: z.string(),
    bytes: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    sha256: z.string().meta({ description: 'The SHA-256 of the uploaded bytes, in hex: uploading the same bytes again answers this record (200).' }),
    alt_text: z.string().nullable(),
    caption: z.string().nullable(),
    credit: z.string().nullable(),
    copyright: z.string().nullable(),
    source: z.string().nullable(),
    rights: z.object({ usage_terms: z.string().nullable(), embargo_until: z.string().nullable(), expires_at: z.string().nullable() }).meta({ id: 'MediaRights' }),
    focal_point: focalPointSchema,
    taken_at: z.string().nullable(),
    used_by: z.array(z.string()).meta({ description: 'The ids of the articles using the image (featured or in the body).' }),
    urls: z
      .object({
        original: z.string().meta({ description: 'The uploaded bytes as they came, metadata included (needs `media:read`).' }),
        renditions: z.array(renditionSchema).meta({ description: 'Signed, immutable URLs of the fixed widths (public, metadata stripped; the format follows `Accept`: AVIF, WebP, else JPEG).' }),
      })
      .meta({ id: 'MediaUrls' }),
    created_at: z.string(),
    created_by: z.string().nullable().meta({ description: 'The user who uploaded it (a token acts as its owner).' }),
    updated_at: z.string(),
    version: z.number().int().meta({ description: 'Raised by every change; the ETag. Send it as If-Match to change only what you saw.' }),
  })
  .meta({ id: 'Media' })
export type MediaRecord = z.infer<typeof mediaRecordSchema>

export const mediaListSchema = z
  .object({ items: z.array(mediaRecordSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int(), next_offset: z.number().int().nullable(), next_cursor: z.string().nullable() })
  .meta({ id: 'MediaList' })
