'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { MediaBadges, previewUrl } from '@/components/media/media-bits'
import { MediaPicker } from '@/components/media/media-picker'
import { useTRPC } from '@/components/trpc-context'
import mediaStyles from '@/components/media/media.module.css'
import styles from './articles.module.css'

/**
 * The article's featured image (its lead picture, `featured_media_id`): the chosen library image
 * with its alt text and rights badges, Choose / Change (the library picker, which asks for alt
 * text when the image has none) and Remove. Saved with the rest of the form.
 */
export function FeaturedImageField({ value, onChange, readOnly, error }: { value: string; onChange: (mediaId: string) => void; readOnly: boolean; error?: string }) {
  const trpc = useTRPC()
  const [open, setOpen] = useState(false)
  const chosen = useQuery({ ...trpc.media.get.queryOptions({ media_id: value }), enabled: value !== '' })
  const media = value ? chosen.data?.media : undefined
  return (
    <div role="group" aria-labelledby="featured-image-label" data-testid="featured-image">
      <span id="featured-image-label" className={styles.fieldLabel}>
        Featured image
      </span>
      {value ? (
        <div className={mediaStyles.featured}>
          {/* eslint-disable-next-line @next/next/no-img-element -- the portal's preview route already serves a sized rendition */}
          <img src={previewUrl(value)} alt={media?.alt_text ?? ''} />
          <div>
            {media ? (
              <>
                <p style={{ margin: 0 }}>
                  <Link href={`/media?media=${encodeURIComponent(value)}`}>{media.filename}</Link>
                </p>
                <p className={mediaStyles.hint} data-testid="featured-alt">
                  {media.alt_text ? `Alt text: ${media.alt_text}` : 'No alt text yet: the article cannot be published until it has some.'}
                </p>
                <MediaBadges media={media} />
              </>
            ) : chosen.isError ? (
              <p className="field-error">This image is no longer in the library ({value}). Choose another or remove it.</p>
            ) : (
              <p role="status">Loading…</p>
            )}
          </div>
        </div>
      ) : (
        <p className={mediaStyles.hint}>None. The site shows the article without a lead picture.</p>
      )}
      {!readOnly && (
        <div className={mediaStyles.actions} style={{ marginTop: 0 }}>
          <button type="button" className="secondary" onClick={() => setOpen(true)}>
            {value ? 'Change featured image' : 'Choose featured image'}
          </button>
          {value && (
            <button type="button" className="secondary" onClick={() => onChange('')}>
              Remove featured image
            </button>
          )}
        </div>
      )}
      {error && <p className="field-error">{error}</p>}
      <MediaPicker
        open={open}
        title="Choose the featured image"
        useLabel="Use as featured image"
        onClose={() => setOpen(false)}
        onChoose={(picked) => {
          setOpen(false)
          onChange(picked.media_id)
        }}
      />
    </div>
  )
}
