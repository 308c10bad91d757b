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

type OffsetPagerProps = {
  offset: number
  pageSize: number
  total: number
  onOffset: (offset: number) => void
  /** What the two buttons say: the page says pages, the pickers say newer and older images. */
  labels: readonly [back: string, forward: string]
  /** Shown after the buttons (the pickers' "25–48 of 120"). */
  children?: React.ReactNode
}

/** Back and forward over an offset-paged list of images; nothing when one page holds them all. */
export function OffsetPager({ offset, pageSize, total, onOffset, labels, children }: OffsetPagerProps) {
  if (total <= pageSize) return null
  return (
    <div className={styles.actions}>
      <button type="button" className="secondary" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        {labels[0]}
      </button>
      <button type="button" className="secondary" disabled={offset + pageSize >= total} onClick={() => onOffset(offset + pageSize)}>
        {labels[1]}
      </button>
      {children}
    </div>
  )
}
