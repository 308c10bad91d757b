'use client'

import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { describePortalError, type PortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import type { PortalMedia } from '@/lib/trpc/routers/media-router'
import { AppDialog } from './app-dialog'
import { MediaBadges, mediaLabel, OffsetPager, previewUrl } from './media-bits'
import styles from './media.module.css'

/**
 * Choose an image from the library (the featured image, "Insert image"): search, a grid of
 * thumbnails with their rights badges, then Use. An image with no alt text is not taken
 * silently: the picker asks for it first (saved to the image, so every article gets it), since
 * an article showing it cannot be published without it; "Use without alt text" stays possible,
 * and publishing will name the image.
 */
// One page of thumbnails; older ones a button away (a busy desk has hundreds a week).
const pickerPageSize = 24

export function MediaPicker({ open, title, useLabel, onClose, onChoose }: { open: boolean; title: string; useLabel: string; onClose: () => void; onChoose: (media: PortalMedia) => void }) {
  return (
    <AppDialog open={open} title={title} onClose={onClose} testId="media-picker">
      <PickerBody useLabel={useLabel} onClose={onClose} onChoose={onChoose} />
    </AppDialog>
  )
}

function PickerBody({ useLabel, onClose, onChoose }: { useLabel: string; onClose: () => void; onChoose: (media: PortalMedia) => void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [typed, setTyped] = useState('')
  const [q, setQ] = useState('')
  const [chosen, setChosen] = useState<PortalMedia | null>(null)
  const [altText, setAltText] = useState('')
  const [asking, setAsking] = useState(false)
  const [failure, setFailure] = useState<PortalError | null>(null)
  const [offset, setOffset] = useState(0)
  const list = useQuery({ ...trpc.media.list.queryOptions({ limit: pickerPageSize, offset, ...(q && { q }) }), placeholderData: keepPreviousData })
  const search = () => {
    setQ(typed.trim())
    setOffset(0)
  }
  const update = useMutation(trpc.media.update.mutationOptions())

  const choose = () => {
    if (!chosen) return
    if (!chosen.alt_text?.trim()) {
      setAsking(true)
      return
    }
    onChoose(chosen)
  }
  const saveAltAndUse = async () => {
    if (!chosen) return
    setFailure(null)
    const save = (media: PortalMedia) => update.mutateAsync({ media_id: media.media_id, version: media.version, changes: { alt_text: altText } })
    try {
      let saved: PortalMedia
      try {
        saved = await save(chosen)
      } catch (error) {
        if (describePortalError(error).code !== 'PRECONDITION_FAILED') throw error
        // Someone saved the image since the grid showed it (a credit, a caption). Only its alt
        // text is written here: while that is still empty, it goes onto the newer version; alt
        // text written meanwhile is shown, not overwritten unseen.
        const fresh = (await queryClient.fetchQuery({ ...trpc.media.get.queryOptions({ media_id: chosen.media_id }), staleTime: 0 })).media
        setChosen(fresh)
        if (fresh.alt_text?.trim()) {
          setFailure({ ...describePortalError(error), message: `Someone gave this image alt text meanwhile: “${fresh.alt_text}”. Save to replace it with yours, or go Back and use the image with theirs.` })
          return
        }
        saved = await save(fresh)
      }
      void queryClient.invalidateQueries(trpc.media.pathFilter())
      onChoose(saved)
    } catch (error) {
      setFailure(describePortalError(error))
    }
  }

  if (asking && chosen) {
    const mayEdit = chosen.edit_refusal === null
    return (
      <div data-testid="alt-text-prompt">
        <p>
          <strong>{chosen.filename} has no alt text.</strong> Readers who cannot see the picture get the alt text instead, and an article showing an image without it cannot be published.
        </p>
        {mayEdit ? (
          <>
            <label htmlFor="picker-alt-text">Alt text for this image</label>
            <textarea id="picker-alt-text" rows={2} autoFocus value={altText} onChange={(event) => setAltText(event.target.value)} style={{ width: '100%' }} />
            <p className={styles.hint}>Saved to the image in the library, for every article that uses it.</p>
          </>
        ) : (
          <p className="alert warning">{chosen.edit_refusal}</p>
        )}
        {failure && (
          <p role="alert" className="alert error">
            {failure.message}
          </p>
        )}
        <div className={styles.actions}>
          {mayEdit && (
            <button type="button" disabled={!altText.trim() || update.isPending} onClick={() => void saveAltAndUse()}>
              {update.isPending ? 'Saving…' : `Save alt text and ${useLabel.toLowerCase()}`}
            </button>
          )}
          {/* The chosen tile and Use button are gone: the keyboard goes to the prompt (its field, or this). */}
          <button type="button" className="secondary" autoFocus={!mayEdit} onClick={() => onChoose(chosen)}>
            {useLabel} without alt text
          </button>
          <button type="button" className="secondary" onClick={() => setAsking(false)}>
            Back
          </button>
        </div>
      </div>
    )
  }

  const items = list.data?.items ?? []
  const total = list.data?.total ?? 0
  return (
    <div>
      <div className={styles.toolbar} role="search" aria-label="Search the media library">
        <div>
          <label htmlFor="picker-q">Search the library</label>
          <input
            id="picker-q"
            type="search"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault()
                search()
              }
            }}
          />
        </div>
        <button type="button" className="secondary" onClick={search}>
          Search
        </button>
      </div>
      {list.isError && (
        <p role="alert" className="alert error">
          {describePortalError(list.error).message}
        </p>
      )}
      {list.isSuccess && items.length === 0 && (
        <p>
          No images{q ? ' match' : ' yet'}. Upload them on the <Link href="/media">Media page</Link>.
        </p>
      )}
      <ul className={styles.pickerGrid} aria-label="Images to choose from">
        {items.map((media) => (
          <li key={media.media_id}>
            <button type="button" className={styles.pickerChoice} aria-pressed={chosen?.media_id === media.media_id} onClick={() => setChosen(media)} aria-label={`Choose ${media.filename}`}>
              {/* eslint-disable-next-line @next/next/no-img-element -- the portal's preview route already serves a sized rendition */}
              <img className={styles.thumb} src={previewUrl(media.media_id)} alt="" loading="lazy" width={320} height={240} />
              <span>{mediaLabel(media)}</span>
              <span>
                <MediaBadges media={media} />
              </span>
            </button>
          </li>
        ))}
      </ul>
      <OffsetPager offset={offset} pageSize={pickerPageSize} total={total} onOffset={setOffset} labels={['Newer images', 'Older images']}>
        <span className={styles.hint}>
          {offset + 1}–{offset + items.length} of {total.toLocaleString('en')}
        </span>
      </OffsetPager>
      <div className={styles.actions}>
        <button type="button" disabled={!chosen} onClick={choose}>
          {useLabel}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  )
}
