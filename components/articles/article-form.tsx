'use client'

import { savedMessage } from '@/lib/articles/revision-wording'
import { zodResolver } from '@hookform/resolvers/zod'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import dynamic from 'next/dynamic'
import { useRouter } from 'next/navigation'
import { useEffect, useRef, useState } from 'react'
import { Controller, useForm, useWatch } from 'react-hook-form'
import type { ArticleFilterOptions } from '@/lib/articles/article-options'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import { useTRPC } from '@/components/trpc-context'
import {
  articleFormSchema,
  articleToForm,
  emptyArticleForm,
  formChanges,
  formFieldOf,
  formNewArticle,
  type ArticleFormInput,
  type ArticleFormValues,
} from './article-form-schema'
import { describePortalError, type PortalError } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { slugify } from '@/lib/articles/article-address'
import { RichTextEditor } from './rich-text-editor'
import { MergeChanges } from './merge-changes'
import styles from './articles.module.css'

// The sanitiser (sanitize-html and its parsers) is loaded when a preview is first asked for.
const BodyPreview = dynamic(() => import('./body-preview').then((module) => module.BodyPreview), {
  ssr: false,
  loading: () => <p role="status">Loading the preview…</p>,
})

type Props = {
  /** The article as last loaded; null on the new-article page. */
  article: ArticleRecord | null
  departments: ArticleFilterOptions['departments']
  onDirtyChange?: (dirty: boolean) => void
  /** Why the signed-in user may not change this article (the domain decides), if they may not. */
  readOnlyReason?: string | null
  /** Someone took the article over: the form is read-only and shows what was typed, to copy. */
  keepTyped?: boolean
  /** A save was refused because someone else holds the edit lease. */
  onLocked?: () => void
}

function slugHint(article: ArticleRecord | null): string {
  if (article?.status === 'published') return 'Part of the public address. Changing it moves the live article to a new address; the current one keeps working as a redirect.'
  if (article?.published_at) return 'Part of the public address, kept since the article was first published; a change applies when it is published again.'
  return 'Part of the public address. It follows the headline until you set it here or the article is first published; leave it empty to keep following.'
}

const describedBy = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(' ') || undefined

/**
 * Headline, lede, body, department and tags. Saving sends the version the form was loaded
 * from, so a change someone else saved meanwhile is reported (412), never overwritten.
 */
export function ArticleForm({ article, departments, onDirtyChange, readOnlyReason, keepTyped = false, onLocked }: Props) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  const readOnly = Boolean(readOnlyReason)
  // The version the form's contents came from: what a save asks to replace.
  const baseVersion = useRef(article?.version ?? 0)
  const [status, setStatus] = useState('')
  const [failure, setFailure] = useState<PortalError | null>(null)
  const [showPreview, setShowPreview] = useState(false)
  const alertRef = useRef<HTMLDivElement>(null)

  const form = useForm<ArticleFormInput, unknown, ArticleFormValues>({
    resolver: zodResolver(articleFormSchema),
    defaultValues: article ? articleToForm(article) : emptyArticleForm,
    shouldFocusError: true,
  })
  const { register, control, formState, handleSubmit, reset, setValue, getValues } = form
  // A save that met a newer version: the newer version, to merge with what is typed.
  const [theirs, setTheirs] = useState<{ form: ArticleFormInput; version: number; record: ArticleRecord } | null>(null)
  const { errors, isDirty, isSubmitting, dirtyFields } = formState
  const [headline, lede, body] = useWatch({ control, name: ['headline', 'lede', 'body'] })

  const create = useMutation(trpc.articles.create.mutationOptions())
  const update = useMutation(trpc.articles.update.mutationOptions())

  useEffect(() => onDirtyChange?.(isDirty), [isDirty, onDirtyChange])

  // A newer version arrived (our own workflow move, a refetch): take it while nothing is
  // being edited. With edits pending, the form keeps them and a save will meet the conflict.
  useEffect(() => {
    if (!article || isDirty || article.version <= baseVersion.current) return
    baseVersion.current = article.version
    reset(articleToForm(article))
    // "Saved. This is now version N" is no longer true once a move or another save raised it.
    setStatus('')
  }, [article, isDirty, reset])

  // Closing or reloading the tab would lose the edits; the browser asks first.
  useEffect(() => {
    if (!isDirty) return
    const warn = (event: BeforeUnloadEvent) => event.preventDefault()
    window.addEventListener('beforeunload', warn)
    return () => window.removeEventListener('beforeunload', warn)
  }, [isDirty])

  // Failures are announced (role=alert) and take the focus, so keyboard users land on them.
  useEffect(() => {
    if (failure) alertRef.current?.focus()
  }, [failure])

  const refresh = () => {
    void queryClient.invalidateQueries(trpc.articles.list.pathFilter())
    if (article) void queryClient.invalidateQueries(trpc.articles.history.queryFilter({ article_id: article.article_id }))
    void queryClient.invalidateQueries(trpc.articles.revisions.pathFilter())
  }

  // A published article changes on the site the moment it is saved: say so first, as taking it down does.
  const live = article?.status === 'published'
  const [pendingLive, setPendingLive] = useState<ArticleFormValues | null>(null)
  const saveOrConfirm = (values: ArticleFormValues) => (live ? setPendingLive(values) : save(values))

  const save = async (values: ArticleFormValues) => {
    setFailure(null)
    setStatus('')
    try {
      if (!article) {
        const created = await create.mutateAsync(formNewArticle(values))
        refresh()
        router.push(`/articles/${created.article_id}?created=1`)
        return
      }
      const saved = await update.mutateAsync({ article_id: article.article_id, version: baseVersion.current, changes: formChanges(values, Boolean(dirtyFields.slug)) })
      baseVersion.current = saved.version
      reset(articleToForm(saved))
      queryClient.setQueryData(trpc.articles.get.queryKey({ article_id: saved.article_id }), (previous) =>
        previous ? { ...previous, article: saved } : previous,
      )
      refresh()
      // The stored body is what readers get; say what the allow-list took out of it.
      const removed = saved.body_removed.length > 0 ? ` The body was cleaned for readers: removed ${saved.body_removed.join(', ')}.` : ''
      setStatus(`${savedMessage(saved.version)}${removed}`)
    } catch (error) {
      if (!applyServerFieldErrors(form, error, formFieldOf)) {
        const described = describePortalError(error)
        setFailure(described)
        if (described.domainCode === 'article_locked') onLocked?.()
        if (described.code === 'PRECONDITION_FAILED' && article) {
          // Fetch what they saved, to show it beside what is typed; the form keeps what is typed.
          const fresh = await queryClient.fetchQuery(trpc.articles.get.queryOptions({ article_id: article.article_id }, { staleTime: 0 })).catch(() => null)
          if (fresh) setTheirs({ form: articleToForm(fresh.article), version: fresh.article.version, record: fresh.article })
        }
      }
    }
  }

  const reload = async () => {
    if (!article) return
    const fresh = await queryClient.fetchQuery(trpc.articles.get.queryOptions({ article_id: article.article_id }, { staleTime: 0 }))
    baseVersion.current = fresh.article.version
    reset(articleToForm(fresh.article))
    setFailure(null)
    refresh()
    setStatus(`Loaded the latest version (${fresh.article.version}).`)
  }

  const conflict = failure?.code === 'PRECONDITION_FAILED'

  return (
    <div>
      {failure && (
        <div role="alert" className="alert error" tabIndex={-1} ref={alertRef} data-testid="save-failure">
          {conflict ? (
            <>
              <p>
                <strong>Not saved: someone else changed this article after you opened it.</strong> {failure.message}
              </p>
              {theirs ? (
                <MergeChanges
                  mine={getValues()}
                  theirs={theirs.form}
                  theirVersion={theirs.version}
                  onApply={(keptMine) => {
                    const typed = getValues()
                    baseVersion.current = theirs.version
                    reset(theirs.form)
                    for (const field of keptMine) setValue(field, typed[field] ?? '', { shouldDirty: true })
                    setFailure(null)
                    setTheirs(null)
                    setStatus(`Now based on version ${theirs.version}, with ${keptMine.length === 0 ? 'their version of every field' : `your ${keptMine.join(', ')}`}. Save to keep it.`)
                  }}
                />
              ) : (
                <>
                  <p>Reload to see their version. Reloading replaces what is in this form, so copy anything you want to keep first.</p>
                  <button type="button" onClick={() => void reload()}>
                    Reload the latest version
                  </button>
                </>
              )}
            </>
          ) : (
            <p>
              <strong>Not saved.</strong> {failure.message}
            </p>
          )}
        </div>
      )}

      <form onSubmit={(event) => void handleSubmit(saveOrConfirm)(event)} noValidate className={styles.form} aria-label={article ? 'Edit article' : 'New article'}>
        {readOnlyReason && !keepTyped && <p className="alert warning">{readOnlyReason}</p>}
        {keepTyped && isDirty && (
          <div className={styles.hint} data-testid="kept-text">
            <label htmlFor="kept-text">What you typed (not saved), to copy</label>
            <textarea id="kept-text" readOnly rows={4} value={[headline, lede, body].filter(Boolean).join('\n\n')} />
          </div>
        )}
        <fieldset disabled={readOnly} className={styles.plainFieldset}>
          <label htmlFor="headline">Headline</label>
          <input
            id="headline"
            type="text"
            autoComplete="off"
            aria-invalid={!!errors.headline}
            aria-describedby={describedBy(errors.headline && 'headline-error')}
            {...register('headline')}
          />
          {errors.headline && (
            <p id="headline-error" className="field-error">
              {errors.headline.message}
            </p>
          )}

          <label htmlFor="slug">URL slug</label>
          <input
            id="slug"
            type="text"
            autoComplete="off"
            spellCheck={false}
            placeholder={headline ? slugify(headline) : 'follows-the-headline'}
            aria-invalid={!!errors.slug}
            aria-describedby={describedBy('slug-hint', errors.slug && 'slug-error')}
            {...register('slug', {
              // Typed words become a slug on leaving the field, as the API would want them.
              onBlur: (event: React.FocusEvent<HTMLInputElement>) => {
                const typed = event.target.value.trim()
                if (typed && typed !== slugify(typed)) setValue('slug', slugify(typed), { shouldDirty: true, shouldValidate: true })
              },
            })}
          />
          <p id="slug-hint" className={styles.hint}>
            {slugHint(article)}
          </p>
          {errors.slug && (
            <p id="slug-error" className="field-error">
              {errors.slug.message}
            </p>
          )}

          <label htmlFor="lede">Lede</label>
          <textarea id="lede" rows={2} aria-invalid={!!errors.lede} aria-describedby={describedBy(errors.lede && 'lede-error')} {...register('lede')} />
          {errors.lede && (
            <p id="lede-error" className="field-error">
              {errors.lede.message}
            </p>
          )}

          <span id="body-label" className={styles.fieldLabel}>
            Body
          </span>
          <Controller
            control={control}
            name="body"
            render={({ field }) => (
              <RichTextEditor
                id="body"
                value={field.value}
                onChange={field.onChange}
                onBlur={field.onBlur}
                fieldRef={field.ref}
                labelId="body-label"
                describedBy={errors.body ? 'body-error' : undefined}
                invalid={!!errors.body}
                readOnly={readOnly}
              />
            )}
          />
          {errors.body && (
            <p id="body-error" className="field-error">
              {errors.body.message}
            </p>
          )}

          <div className={styles.twoFields}>
            <div>
              <label htmlFor="department_id">Department</label>
              <select
                id="department_id"
                aria-invalid={!!errors.department_id}
                aria-describedby={describedBy(errors.department_id && 'department-error')}
                {...register('department_id')}
              >
                <option value="">No department</option>
                {departments.map((department) => (
                  <option key={department.id} value={department.id}>
                    {department.name}
                  </option>
                ))}
              </select>
              {errors.department_id && (
                <p id="department-error" className="field-error">
                  {errors.department_id.message}
                </p>
              )}
            </div>
            <div>
              <label htmlFor="tags">Tags</label>
              <input
                id="tags"
                type="text"
                autoComplete="off"
                aria-invalid={!!errors.tags}
                aria-describedby={describedBy('tags-hint', errors.tags && 'tags-error')}
                {...register('tags')}
              />
              <p id="tags-hint" className={styles.hint}>
                Separate tags with commas, e.g. local, politics.
              </p>
              {errors.tags && (
                <p id="tags-error" className="field-error">
                  {errors.tags.message}
                </p>
              )}
            </div>
          </div>
        </fieldset>

        <div className={styles.actions}>
          {!readOnly && (
            <button type="submit" disabled={isSubmitting}>
              {isSubmitting ? 'Saving…' : article ? 'Save changes' : 'Create draft'}
            </button>
          )}
          <button type="button" className="secondary" aria-expanded={showPreview} aria-controls={showPreview ? 'body-preview' : undefined} onClick={() => setShowPreview(!showPreview)}>
            {showPreview ? 'Hide preview' : 'Show preview'}
          </button>
          {article && isDirty && <span className={styles.hint}>Unsaved changes</span>}
        </div>
        {live && !readOnly && <p className={styles.hint}>This article is live: saving changes it on the site at once.</p>}
        <p role="status" aria-live="polite" className={styles.hint} data-testid="save-status">
          {status}
        </p>
      </form>

      {showPreview && <BodyPreview id="body-preview" headline={headline} lede={lede} body={body} />}
      <ConfirmDialog
        open={pendingLive !== null}
        title="Change the live article?"
        confirmLabel="Save and update the site"
        busyLabel="Saving…"
        busy={isSubmitting || update.isPending}
        tone="primary"
        onCancel={() => setPendingLive(null)}
        onConfirm={() => {
          const values = pendingLive
          if (!values) return
          void save(values).finally(() => setPendingLive(null))
        }}
      >
        <p>“{article?.headline}” is published{article?.url ? ` at ${article.url}` : ''}. Readers see your changes as soon as you save them, and subscribed systems are told.</p>
        {pendingLive && dirtyFields.slug && (
          <p data-testid="address-move">
            Its address changes to the slug “{pendingLive.slug ?? slugify(pendingLive.headline)}”; the current address is kept and redirects to the new one.
          </p>
        )}
      </ConfirmDialog>
    </div>
  )
}
