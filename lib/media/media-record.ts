import type { Media } from '../db/generated/client.ts'
import type { MediaRecord } from './media-schemas.ts'
import { allRenditionUrls } from './renditions.ts'

export type MediaWithUse = Media & { usedBy: string[] }

/** A media row as the API, the events and the portal show it. */
export function toMediaRecord(media: MediaWithUse): MediaRecord {
  return {
    media_id: media.id,
    content_type: media.contentType as MediaRecord['content_type'],
    filename: media.filename,
    bytes: media.bytes,
    width: media.width,
    height: media.height,
    sha256: media.sha256,
    alt_text: media.altText,
    caption: media.caption,
    credit: media.credit,
    copyright: media.copyright,
    source: media.source,
    rights: { usage_terms: media.usageTerms, embargo_until: media.embargoUntil?.toISOString() ?? null, expires_at: media.expiresAt?.toISOString() ?? null },
    focal_point: { x: media.focalX, y: media.focalY },
    taken_at: media.takenAt?.toISOString() ?? null,
    used_by: media.usedBy,
    urls: { original: `/v1/media/${media.id}/original`, renditions: allRenditionUrls(media) },
    created_at: media.createdAt.toISOString(),
    created_by: media.createdById,
    updated_at: media.updatedAt.toISOString(),
    version: media.version,
  }
}
