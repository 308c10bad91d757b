'use client'

import type { PortalMedia } from '@/lib/trpc/routers/media-router'
import styles from './media.module.css'

/** The portal's own view of an image (app/api/media/[media_id]/preview): embargoed ones too. */
export const previewUrl = (mediaId: string, width = 320) => `/api/media/${encodeURIComponent(mediaId)}/preview?w=${width}`

/** The rights badges the server computed from the publishing rule (lib/media/media-badges.ts). */
export function MediaBadges({ media }: { media: Pick<PortalMedia, 'badges'> }) {
  if (media.badges.length === 0) return null
  return (
    <span className={styles.badges} data-testid="media-badges">
      {media.badges.map((badge) => (
        <span key={badge.kind} className={`${styles.badge} ${styles[badge.kind] ?? ''}`}>
          {badge.label}
        </span>
      ))}
    </span>
  )
}

/** What a person calls the image: its alt text or caption, else its file name. */
export const mediaLabel = (media: Pick<PortalMedia, 'alt_text' | 'caption' | 'filename'>) => media.alt_text || media.caption || media.filename
