'use client'

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useRouter, useSearchParams } from 'next/navigation'
import { useState } from 'react'
import { AddressTrail } from '@/components/address-trail'
import { describePortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import { MediaBadges, mediaLabel, OffsetPager, previewUrl } from './media-bits'
import { MediaEditor } from './media-editor'
import { MediaUploader } from './media-upload'
import styles from './media.module.css'

const pageSize = 30
const weekMs = 7 * 24 * 60 * 60 * 1000

type Filters = { q: string; credit: string; use: '' | 'unused' | 'used'; rights: '' | 'expiring' }

/** The filters the address names; an unknown value is no filter. */
function filtersOf(params: URLSearchParams): Filters {
  const use = params.get('use')
  return {
    q: params.get('q') ?? '',
    credit: params.get('credit') ?? '',
    use: use === 'used' || use === 'unused' ? use : '',
    rights: params.get('rights') === 'expiring' ? 'expiring' : '',
  }
}

/**
 * The Media page: upload (drop or choose files, a progress bar each), search and filters, the
 * thumbnail grid with rights badges, and the selected image's details beside it. The selected
 * image is in the address (?media=…), so a link from elsewhere opens it.
 */
export function MediaLibrary({ maxBytes }: { maxBytes: number }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  const params = useSearchParams()
  const selected = params.get('media')
  // The filters and the page are in the address too: a search can be shared or bookmarked, and
  // Back returns to the search before (each applied search is a history entry).
  const address = params.toString()
  const filters = filtersOf(params)
  const offset = Math.max(0, Math.floor(Number(params.get('offset')) || 0))
  const [typed, setTyped] = useState<Filters>(filters)
  // The form follows the address's filters when they change under it (Back, a link); opening or
  // closing an image changes the address too, and must not wipe what is being typed. Nor does
  // the arrival of a search this page asked for: a credit typed while it was on its way stays.
  const filtersKey = JSON.stringify(filters)
  const [typedFor, setTypedFor] = useState(filtersKey)
  const [askedFilters, setAskedFilters] = useState<string | null>(null)
  if (typedFor !== filtersKey) {
    setTypedFor(filtersKey)
    setAskedFilters(null)
    if (filtersKey !== askedFilters) setTyped(filters)
  }
  // Fixed when the filter is applied (or the page opened with it), so the query key does not
  // change every render.
  const [expiringBefore, setExpiringBefore] = useState(() => new Date(Date.now() + weekMs).toISOString())
  // Whether the details about to open were asked for from a thumbnail (take focus there).
  const [fromTile, setFromTile] = useState(false)

  const input = {
    limit: pageSize as number,
    offset,
    ...(filters.q && { q: filters.q }),
    ...(filters.credit && { credit: filters.credit }),
    ...(filters.use && { unused: filters.use === 'unused' }),
    ...(filters.rights === 'expiring' && expiringBefore && { rights_expire_before: expiringBefore }),
  }
  const list = useQuery({ ...trpc.media.list.queryOptions(input), placeholderData: keepPreviousData })

  // Each change builds on the latest address asked for, not the one last rendered: an upload
  // finishing just after a search (or a search just after an upload) would otherwise undo the other.
  const [trail] = useState(() => new AddressTrail(address))
  trail.render(address)
  const navigate = (changes: Record<string, string | null>, asked: 'push' | 'replace') => {
    const how = trail.how(asked)
    const next = trail.next(changes, how)
    router[how](`/media${next ? `?${next}` : ''}`, { scroll: false })
    return next
  }

  const select = (mediaId: string | null) => navigate({ media: mediaId }, 'replace')

  const apply = () => {
    if (typed.rights === 'expiring') setExpiringBefore(new Date(Date.now() + weekMs).toISOString())
    const next = navigate({ q: typed.q.trim() || null, credit: typed.credit.trim() || null, use: typed.use || null, rights: typed.rights || null, offset: null }, 'push')
    // A search for the filters shown supersedes one still on its way: left set, that one's
    // filters would be taken for this page's own search when Back later showed them.
    const asked = JSON.stringify(filtersOf(new URLSearchParams(next)))
    setAskedFilters(asked === filtersKey ? null : asked)
  }

  const items = list.data?.items ?? []
  const total = list.data?.total ?? 0

  return (
    <div>
      <h1>Media</h1>
      <MediaUploader
        maxBytes={maxBytes}
        onUploaded={(media) => {
          void queryClient.invalidateQueries(trpc.media.list.pathFilter())
          setFromTile(false)
          select(media.media_id)
        }}
      />
      <form
        role="search"
        aria-label="Search the media library"
        className={styles.toolbar}
        onSubmit={(event) => {
          event.preventDefault()
          apply()
        }}
      >
        <div>
          <label htmlFor="media-q">Search</label>
          <input id="media-q" type="search" placeholder="Caption, credit, alt text, file name" value={typed.q} onChange={(event) => setTyped({ ...typed, q: event.target.value })} />
        </div>
        <div>
          <label htmlFor="media-credit-filter">Credit</label>
          <input id="media-credit-filter" type="text" value={typed.credit} onChange={(event) => setTyped({ ...typed, credit: event.target.value })} />
        </div>
        <div>
          <label htmlFor="media-use">Used</label>
          <select id="media-use" value={typed.use} onChange={(event) => setTyped({ ...typed, use: event.target.value as Filters['use'] })}>
            <option value="">Used or not</option>
            <option value="used">Used in an article</option>
            <option value="unused">Not used anywhere</option>
          </select>
        </div>
        <div>
          <label htmlFor="media-rights">Licence</label>
          <select id="media-rights" value={typed.rights} onChange={(event) => setTyped({ ...typed, rights: event.target.value as Filters['rights'] })}>
            <option value="">Any</option>
            <option value="expiring">Expired or expiring within 7 days</option>
          </select>
        </div>
        <button type="submit">Search</button>
      </form>

      {list.isError && (
        <p role="alert" className="alert error">
          {describePortalError(list.error).message}
        </p>
      )}
      <p role="status" className={styles.hint} data-testid="media-count">
        {list.isPending ? 'Loading the library…' : total === 0 ? 'No images match.' : `${total.toLocaleString('en')} image${total === 1 ? '' : 's'}${total > pageSize ? `, ${offset + 1}–${offset + items.length} shown` : ''}.`}
      </p>
      {selected && (
        <>
          <MediaEditor key={selected} mediaId={selected} focusOnOpen={fromTile} onDeleted={() => select(null)} />
          <p>
            <button type="button" className="secondary" onClick={() => select(null)}>
              Close image details
            </button>
          </p>
        </>
      )}
      <ul className={styles.grid} aria-label="Images" aria-busy={list.isFetching}>
        {items.map((media) => (
          <li key={media.media_id} className={styles.tile} aria-current={media.media_id === selected ? 'true' : undefined} data-testid="media-tile">
            <button type="button" className={styles.tileButton} onClick={() => (setFromTile(true), select(media.media_id))} aria-label={`Edit ${media.filename}`}>
              {/* eslint-disable-next-line @next/next/no-img-element -- the portal's preview route already serves a sized rendition */}
              <img className={styles.thumb} src={previewUrl(media.media_id)} alt="" loading="lazy" width={320} height={240} />
            </button>
            <div className={styles.tileText}>
              <p>{mediaLabel(media)}</p>
              {media.credit && <p className="muted">{media.credit}</p>}
              <MediaBadges media={media} />
              {media.used_by.length > 0 && (
                <p className="muted">
                  In {media.used_by.length} article{media.used_by.length === 1 ? '' : 's'}
                </p>
              )}
            </div>
          </li>
        ))}
      </ul>
      <OffsetPager offset={offset} pageSize={pageSize} total={total} onOffset={(next) => navigate({ offset: next > 0 ? String(next) : null }, 'push')} labels={['Previous page', 'Next page']} />
    </div>
  )
}
