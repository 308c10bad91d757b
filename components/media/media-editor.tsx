'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useEffect, useRef, useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'
import { ConfirmDialog, useConfirmation } from '@/components/confirm-dialog'
import { describePortalError, type PortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import type { UpdateMediaInput } from '@/lib/media/media-schemas'
import type { PortalMedia } from '@/lib/trpc/routers/media-router'
import { FocalPointPicker } from './focal-point-picker'
import { MediaBadges, previewUrl } from './media-bits'
import styles from './media.module.css'

type Fields = { version: number; focal_x: number; focal_y: number; alt_text: string; caption: string; credit: string; copyright: string; source: string; usage_terms: string; embargo_until: string; expires_at: string }

/** An ISO instant as a datetime-local value in the browser's zone, and back. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return ''
  const date = new Date(iso)
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : null)

const fieldsOf = (media: PortalMedia): Fields => ({
  // Not a field: the version the other values were read from, what a save asks to replace.
  version: media.version,
  focal_x: media.focal_point.x,
  focal_y: media.focal_point.y,
  alt_text: media.alt_text ?? '',
  caption: media.caption ?? '',
  credit: media.credit ?? '',
  copyright: media.copyright ?? '',
  source: media.source ?? '',
  usage_terms: media.rights.usage_terms ?? '',
  embargo_until: toLocalInput(media.rights.embargo_until),
  expires_at: toLocalInput(media.rights.expires_at),
})

const fieldNames: Record<Exclude<keyof Fields, 'version'>, string> = {
  focal_x: 'The focal point',
  focal_y: 'The focal point',
  alt_text: 'Alt text',
  caption: 'Caption',
  credit: 'Credit',
  copyright: 'Copyright',
  source: 'Source',
  usage_terms: 'Usage terms',
  embargo_until: 'Embargo',
  expires_at: 'Licence end',
}

const statusWords: Record<string, string> = { draft: 'draft', 'in-review': 'in review', approved: 'approved', published: 'published', archived: 'archived' }

/**
 * One image's record: alt text, caption, credit, copyright, source, licence terms, embargo and
 * expiry, the focal point (click the image), where it is used, and Delete. What this member may
 * do comes from the server (edit_refusal, delete_refusal: mediaActionRefusal), never decided here.
 */
export function MediaEditor({ mediaId, onDeleted, focusOnOpen = false }: { mediaId: string; onDeleted: () => void; focusOnOpen?: boolean }) {
  const headingRef = useRef<HTMLHeadingElement>(null)
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const query = useQuery(trpc.media.get.queryOptions({ media_id: mediaId }))
  const media = query.data?.media
  const form = useForm<Fields>({ defaultValues: media ? fieldsOf(media) : undefined })
  const [status, setStatus] = useState('')
  const [failure, setFailure] = useState<PortalError | null>(null)
  const [catchingUp, setCatchingUp] = useState(false)
  const [focalX, focalY] = useWatch({ control: form.control, name: ['focal_x', 'focal_y'] })
  const update = useMutation(trpc.media.update.mutationOptions())
  const remove = useMutation(trpc.media.delete.mutationOptions())
  const deletion = useConfirmation<null>({ version: media?.version ?? 0, state: 'in the library' })
  const [deleteFailure, setDeleteFailure] = useState<PortalError | null>(null)

  const dirtyFields = form.formState.dirtyFields

  // A newly loaded version (or another image) replaces what was not typed here, its version too. A refetch (the
  // tab shown again, a refused save) must never throw away what the person typed: their
  // changed fields are kept and they are told the image moved on (a form error at `root`,
  // cleared by the next save); the save then sends only those fields, so it neither undoes the
  // other change nor loses its own.
  const loadedKey = media ? `${media.media_id}@${media.version}` : null
  useEffect(() => {
    if (!media) return
    const next = fieldsOf(media)
    const dirty = Object.keys(form.formState.dirtyFields) as Exclude<keyof Fields, 'version'>[]
    if (dirty.length === 0) {
      form.reset(next)
    } else if (media.version !== form.getValues('version')) {
      const before = form.formState.defaultValues ?? {}
      const overlapping = [...new Set(dirty.filter((field) => next[field] !== before[field]).map((field) => fieldNames[field]))]
      form.reset(next, { keepDirtyValues: true })
      form.setError('root.changedElsewhere', {
        message:
          `This image was saved elsewhere while you were editing (it is now version ${media.version}). Your unsaved changes are kept; the other fields show the new version.` +
          (overlapping.length > 0 ? ` ${overlapping.join(', ')} changed there too: saving replaces ${overlapping.length === 1 ? 'it' : 'them'} with yours.` : ''),
      })
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reset once per loaded version, not per render
  }, [loadedKey])

  // Opened from a thumbnail: the details are drawn above the grid, so the person (a keyboard,
  // a phone scrolled down the grid) is taken to them rather than left on the tile.
  const loaded = media !== undefined
  useEffect(() => {
    if (!loaded || !focusOnOpen) return
    headingRef.current?.scrollIntoView({ block: 'start' })
    headingRef.current?.focus({ preventScroll: true })
  }, [loaded, focusOnOpen])

  if (query.isError) return <p role="alert" className="alert error">{describePortalError(query.error).message}</p>
  if (!media || !query.data) return <p role="status">Loading the image…</p>
  const uses = query.data.uses
  const readOnly = media.edit_refusal !== null

  const refresh = () => {
    void queryClient.invalidateQueries(trpc.media.list.pathFilter())
    void queryClient.invalidateQueries(trpc.media.get.queryFilter({ media_id: mediaId }))
  }

  const save = form.handleSubmit(async (values) => {
    setFailure(null)
    setStatus('')
    const text = (value: string) => value.trim() || null
    // Only what was changed here: an untouched field re-sent would undo another tab's change to it.
    const dirty = dirtyFields
    const rights: NonNullable<UpdateMediaInput['rights']> = {
      ...(dirty.usage_terms && { usage_terms: text(values.usage_terms) }),
      ...(dirty.embargo_until && { embargo_until: fromLocalInput(values.embargo_until) }),
      ...(dirty.expires_at && { expires_at: fromLocalInput(values.expires_at) }),
    }
    const changes: UpdateMediaInput = {
      ...(dirty.alt_text && { alt_text: text(values.alt_text) }),
      ...(dirty.caption && { caption: text(values.caption) }),
      ...(dirty.credit && { credit: text(values.credit) }),
      ...(dirty.copyright && { copyright: text(values.copyright) }),
      ...(dirty.source && { source: text(values.source) }),
      ...(Object.keys(rights).length > 0 && { rights }),
      ...((dirty.focal_x || dirty.focal_y) && { focal_point: { x: values.focal_x, y: values.focal_y } }),
    }
    if (Object.keys(changes).length === 0) {
      setStatus('Nothing to save: no field was changed.')
      return
    }
    try {
      const saved = await update.mutateAsync({ media_id: mediaId, version: values.version, changes })
      form.reset(fieldsOf(saved))
      queryClient.setQueryData(trpc.media.get.queryKey({ media_id: mediaId }), (previous) => (previous ? { ...previous, media: saved } : previous))
      refresh()
      setStatus(`Saved. This is now version ${saved.version}.`)
    } catch (error) {
      setFailure(describePortalError(error))
      if (describePortalError(error).code !== 'PRECONDITION_FAILED') return
      // Refused because another tab saved first: the button stays off until the newer version is
      // here and the form is rebased on it, or a hurried second click would go against the old
      // version and be refused again.
      setCatchingUp(true)
      try {
        void queryClient.invalidateQueries(trpc.media.list.pathFilter())
        await queryClient.invalidateQueries(trpc.media.get.queryFilter({ media_id: mediaId }))
      } finally {
        setCatchingUp(false)
      }
    }
  })

  const confirmDelete = async () => {
    const subject = deletion.subject
    if (!subject) return
    deletion.sent()
    setDeleteFailure(null)
    try {
      await remove.mutateAsync({ media_id: mediaId, version: subject.version })
      deletion.close()
      refresh()
      onDeleted()
    } catch (error) {
      setDeleteFailure(describePortalError(error))
      deletion.resume()
      refresh()
    }
  }

  return (
    <section className={`card ${styles.editor}`} aria-labelledby="media-editor-heading" data-testid="media-editor">
      <h2 id="media-editor-heading" ref={headingRef} tabIndex={-1}>
        {media.filename}
      </h2>
      <MediaBadges media={media} />
      <p className={styles.hint}>
        {media.width}×{media.height} px, {(media.bytes / 1024).toLocaleString('en', { maximumFractionDigits: 0 })} KB, {media.content_type}. Uploaded {new Date(media.created_at).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })}.
      </p>
      {readOnly && <p className="alert warning">{media.edit_refusal}</p>}
      {!readOnly && form.formState.errors.root?.changedElsewhere && (
        <p role="alert" className="alert warning" data-testid="media-changed-elsewhere">
          {form.formState.errors.root.changedElsewhere.message}
        </p>
      )}
      <div className={styles.editorLayout}>
        <div>
          <FocalPointPicker src={previewUrl(media.media_id, 960)} alt={media.alt_text ?? ''} value={{ x: focalX ?? 0.5, y: focalY ?? 0.5 }} onChange={(point) => (form.setValue('focal_x', point.x, { shouldDirty: true }), form.setValue('focal_y', point.y, { shouldDirty: true }))} disabled={readOnly} />
          <h3>Used in</h3>
          {uses.length === 0 ? (
            <p className={styles.hint} data-testid="media-uses">
              No article uses this image yet.
            </p>
          ) : (
            <ul className={styles.uses} data-testid="media-uses">
              {uses.map((use) => (
                <li key={use.article_id}>
                  <Link href={`/articles/${use.article_id}`}>{use.headline}</Link> <span className="muted">({statusWords[use.status] ?? use.status})</span>
                </li>
              ))}
            </ul>
          )}
        </div>
        <form onSubmit={(event) => void save(event)} noValidate aria-label="Image details">
          <fieldset disabled={readOnly} className={styles.plainFieldset}>
            <label htmlFor="media-alt-text">Alt text</label>
            <textarea id="media-alt-text" rows={2} aria-describedby="media-alt-hint" {...form.register('alt_text')} />
            <p id="media-alt-hint" className={styles.hint}>
              What the picture shows, for readers who cannot see it. An article with this image cannot be published without it.
            </p>
            <label htmlFor="media-caption">Caption</label>
            <textarea id="media-caption" rows={2} {...form.register('caption')} />
            <label htmlFor="media-credit">Credit</label>
            <input id="media-credit" type="text" autoComplete="off" placeholder="Jane Doe / Reuters" {...form.register('credit')} />
            <label htmlFor="media-copyright">Copyright</label>
            <input id="media-copyright" type="text" autoComplete="off" {...form.register('copyright')} />
            <label htmlFor="media-source">Source</label>
            <input id="media-source" type="text" autoComplete="off" placeholder="Agency, wire feed, staff" {...form.register('source')} />
            <fieldset className={styles.fieldset}>
              <legend>Rights</legend>
              <label htmlFor="media-usage-terms">Usage terms</label>
              <textarea id="media-usage-terms" rows={2} placeholder="Editorial use only" {...form.register('usage_terms')} />
              <label htmlFor="media-embargo">Embargoed until</label>
              <input id="media-embargo" type="datetime-local" aria-describedby="media-embargo-hint" {...form.register('embargo_until')} />
              <p id="media-embargo-hint" className={styles.hint}>
                Until then no article with it can be published. Your time zone.
              </p>
              <label htmlFor="media-expires">Licence expires</label>
              <input id="media-expires" type="datetime-local" aria-describedby="media-expires-hint" {...form.register('expires_at')} />
              <p id="media-expires-hint" className={styles.hint}>
                From then on the site no longer gets the image; live articles keep their text.
              </p>
            </fieldset>
          </fieldset>
          {failure && (
            <p role="alert" className="alert error" data-testid="media-save-failure">
              <strong>Not saved.</strong> {failure.message}
            </p>
          )}
          <div className={styles.actions}>
            {!readOnly && (
              <button type="submit" disabled={update.isPending || catchingUp}>
                {update.isPending ? 'Saving…' : catchingUp ? 'Reading the newer version…' : 'Save image details'}
              </button>
            )}
            {!readOnly && form.formState.isDirty && <span className={styles.hint}>Unsaved changes</span>}
            {media.delete_refusal === null && (
              <button type="button" className="danger" onClick={() => (setDeleteFailure(null), deletion.open(null))}>
                Delete image
              </button>
            )}
          </div>
          <p role="status" aria-live="polite" className={styles.hint} data-testid="media-save-status">
            {status}
          </p>
        </form>
      </div>
      <ConfirmDialog
        open={deletion.isOpen}
        title={`Delete ${media.filename}?`}
        confirmLabel="Delete image"
        busyLabel="Deleting…"
        busy={remove.isPending}
        error={deleteFailure ? deleteFailure.message : null}
        watch={deletion.watch(() => 'changed', true)}
        onCancel={() => (setDeleteFailure(null), deletion.close())}
        onConfirm={() => void confirmDelete()}
      >
        <p>The image and every size made of it are removed from the library and the store. This cannot be undone.</p>
        {uses.length > 0 && (
          <>
            <p>These articles use it; a published one keeps the image from being deleted:</p>
            <ul className={styles.uses}>
              {uses.map((use) => (
                <li key={use.article_id}>
                  <Link href={`/articles/${use.article_id}`}>{use.headline}</Link> ({statusWords[use.status] ?? use.status})
                </li>
              ))}
            </ul>
          </>
        )}
      </ConfirmDialog>
    </section>
  )
}
