'use client'

import { savedMessage } from '@/lib/articles/revision-wording'
import { zodResolver } from '@/components/form-wording'
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
import { ConfirmDialog, useConfirmation } from '@/components/confirm-dialog'
import { slugify } from '@/lib/articles/article-address'
import { RichTextEditor } from './rich-text-editor'
import { FeaturedImageField } from './featured-image-field'
import { htmlToText } from '@/lib/text/word-diff'
import { MergeChanges, mergeFieldNames, type FormField } from './merge-changes'
import { resolveField, threeWayMerge, type MergeResult, type Side } from '@/lib/articles/three-way-merge'
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
  /** The reason is already on the page (the lease banner): the form only turns read-only. */
  readOnlyExplained?: boolean
  /** A save was refused because someone else holds the edit lease. */
  onLocked?: () => void
}

function slugHint(article: ArticleRecord | null): string {
  if (article?.status === 'published') return 'Part of the public address. Changing it moves the live article to a new address; the current one keeps working as a redirect.'
  if (article?.published_at) return 'Part of the public address, kept since the article was first published; a change applies when it is published again.'
  return 'Part of the public address. It follows the headline until you set it here or the article is first published; leave it empty to keep following.'
}

/** The form's values as the merge compares them: tags in one spelling ("a, b"), so spacing is no change. */
function comparable(values: ArticleFormInput): Record<FormField, string> {
  const tags = (values.tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)
    .join(', ')
  return { headline: values.headline ?? '', slug: values.slug ?? '', lede: values.lede ?? '', body: values.body ?? '', department_id: values.department_id ?? '', featured_media_id: values.featured_media_id ?? '', tags }
}

/** "headline, body": the fields a merge took from one side. */
function mergedFields(merge: MergeResult<FormField>, side: Side): string {
  return (Object.keys(merge.fields) as FormField[])
    .filter((field) => merge.fields[field].outcome === side || (side === 'mine' && merge.fields[field].outcome === 'combined'))
    .map((field) => mergeFieldNames[field].toLowerCase())
    .join(', ')
}

const describedBy = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(' ') || undefined

/**
 * Headline, lede, body, department and tags. Saving sends the version the form was loaded
 * from, so a change someone else saved meanwhile is reported (412), never overwritten.
 */
export function ArticleForm({ article, departments, onDirtyChange, readOnlyReason, readOnlyExplained = false, keepTyped = false, onLocked }: Props) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  const readOnly = Boolean(readOnlyReason)
  // The version the form's contents came from: what a save asks to replace.
  const baseVersion = useRef(article?.version ?? 0)
  // And the contents of that version: the "base" a conflicting save merges from (three-way),
  // kept from load, so a field only the other person changed is never mistaken for one of mine.
  const baseForm = useRef<ArticleFormInput>(article ? articleToForm(article) : emptyArticleForm)
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
  const [theirs, setTheirs] = useState<{ form: ArticleFormInput; version: number; merge: MergeResult<FormField> } | null>(null)
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
    baseForm.current = articleToForm(article)
    reset(baseForm.current)
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
  // Pinned to the version and state shown: a story taken down or changed while it is open is asked about again.
  const liveSave = useConfirmation<ArticleFormValues>({ version: article?.version ?? 0, state: article?.status ?? 'draft' })
  const pendingLive = liveSave.payload
  const saveOrConfirm = (values: ArticleFormValues) => (live ? liveSave.open(values) : save(values))

  /**
   * `confirmedLive`: the person answered "Change the live article?" for this save. A save that
   * meets a newer version is merged and sent again by itself only when that answers the question
   * the article now asks: one a colleague published meanwhile is asked about first.
   */
  const save = async (values: ArticleFormValues, retried = false, combined?: string, confirmedLive = false) => {
    setFailure(null)
    setStatus('')
    try {
      if (!article) {
        const created = await create.mutateAsync(formNewArticle(values))
        refresh()
        router.push(`/articles/${created.article_id}?created=1`)
        return
      }
      const saved = await update.mutateAsync({ article_id: article.article_id, version: baseVersion.current, changes: formChanges(values, form.getFieldState('slug').isDirty) })
      baseVersion.current = saved.version
      baseForm.current = articleToForm(saved)
      reset(baseForm.current)
      queryClient.setQueryData(trpc.articles.get.queryKey({ article_id: saved.article_id }), (previous) =>
        previous ? { ...previous, article: saved } : previous,
      )
      refresh()
      // The stored body is what readers get; say what the allow-list took out of it.
      const removed = saved.body_removed.length > 0 ? ` The body was cleaned for readers: removed ${saved.body_removed.join(', ')}.` : ''
      setStatus(`${combined ? `${combined} ` : ''}${savedMessage(saved.version)}${removed}`)
    } catch (error) {
      if (!applyServerFieldErrors(form, error, formFieldOf)) {
        const described = describePortalError(error)
        setFailure(described)
        if (described.domainCode === 'article_locked') onLocked?.()
        if (described.code === 'PRECONDITION_FAILED' && article) {
          // Fetch what they saved and merge it with what is typed, from the version this form started from.
          const fresh = await queryClient.fetchQuery(trpc.articles.get.queryOptions({ article_id: article.article_id }, { staleTime: 0 })).catch(() => null)
          if (fresh) {
            const theirForm = articleToForm(fresh.article)
            const merge = threeWayMerge(comparable(baseForm.current), comparable(getValues()), comparable(theirForm), { blockFields: ['body'] })
            if (merge.conflicts.length === 0 && !retried) {
              // Each side changed different things: both are kept, without a question.
              adopt(fresh.article.version, theirForm, merge, {})
              setFailure(null)
              const mine = mergedFields(merge, 'mine')
              const theirsChanged = mergedFields(merge, 'theirs')
              const combinedWords = `Combined with version ${fresh.article.version}: kept ${mine || 'nothing of yours'} and their ${theirsChanged || 'unchanged fields'}.`
              // The story went live since this page showed it: the combined save changes the
              // site, so it asks as any save of a live story does, pinned to the version just read.
              if (fresh.article.status === 'published' && !confirmedLive) {
                setStatus(`${combinedWords} It was published meanwhile: confirm to update the site, or cancel to keep your changes unsaved.`)
                await handleSubmit((merged) => liveSave.open(merged, { version: fresh.article.version, state: fresh.article.status }))()
                return
              }
              await handleSubmit((merged) => save(merged, true, combinedWords, confirmedLive))()
              return
            }
            setTheirs({ form: theirForm, version: fresh.article.version, merge })
          }
        }
      }
    }
  }

  /** Base the form on their version, with what the merge keeps of mine (and the choices made). */
  const adopt = (version: number, theirForm: ArticleFormInput, merge: MergeResult<FormField>, choices: Partial<Record<FormField, Side>>) => {
    baseVersion.current = version
    baseForm.current = theirForm
    reset(theirForm)
    for (const field of Object.keys(merge.fields) as FormField[]) {
      const result = merge.fields[field]
      const value = result.outcome === 'conflict' ? resolveField(result, choices[field] ?? 'theirs') : result.value
      if (value !== comparable(theirForm)[field]) setValue(field, value, { shouldDirty: true })
    }
  }

  const reload = async () => {
    if (!article) return
    const fresh = await queryClient.fetchQuery(trpc.articles.get.queryOptions({ article_id: article.article_id }, { staleTime: 0 }))
    baseVersion.current = fresh.article.version
    baseForm.current = articleToForm(fresh.article)
    reset(baseForm.current)
    setFailure(null)
    refresh()
    setStatus(`Loaded the latest version (${fresh.article.version}).`)
  }

  const conflict = failure?.code === 'PRECONDITION_FAILED'

  return (
    <div>
      {conflict && theirs && (
        <MergeChanges
          merge={theirs.merge}
          theirVersion={theirs.version}
          what={failure.message}
          onApply={(choices) => {
            adopt(theirs.version, theirs.form, theirs.merge, choices)
            setFailure(null)
            setTheirs(null)
            setStatus(`Now based on version ${theirs.version}, with the changes you chose. Save to keep it.`)
          }}
        />
      )}
      {failure && !(conflict && theirs) && (
        <div role="alert" className="alert error" tabIndex={-1} ref={alertRef} data-testid="save-failure">
          {conflict ? (
            <>
              <p>
                <strong>Not saved: someone else changed this article after you opened it.</strong> {failure.message}
              </p>
              <p>Reload to see their version. Reloading replaces what is in this form, so copy anything you want to keep first.</p>
              <button type="button" onClick={() => void reload()}>
                Reload the latest version
              </button>
            </>
          ) : (
            <p>
              <strong>Not saved.</strong> {failure.message}
            </p>
          )}
        </div>
      )}

      <form onSubmit={(event) => void handleSubmit(saveOrConfirm)(event)} noValidate className={styles.form} aria-label={article ? 'Edit article' : 'New article'}>
        {readOnlyReason && !keepTyped && !readOnlyExplained && <p className="alert warning">{readOnlyReason}</p>}
        {keepTyped && isDirty && (
          <div className={styles.hint} data-testid="kept-text">
            <label htmlFor="kept-text">What you typed (not saved), to copy</label>
            <textarea id="kept-text" readOnly rows={4} value={[headline, lede, htmlToText(body ?? '')].filter(Boolean).join('\n\n')} />
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

          <Controller
            control={control}
            name="featured_media_id"
            render={({ field }) => <FeaturedImageField value={field.value ?? ''} onChange={field.onChange} readOnly={readOnly} error={errors.featured_media_id?.message} />}
          />

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
        open={liveSave.isOpen}
        title={liveSave.subject?.state === 'published' || !liveSave.subject ? 'Change the live article?' : 'Save your changes?'}
        confirmLabel={liveSave.subject?.state === 'published' || !liveSave.subject ? 'Save and update the site' : 'Save changes'}
        busyLabel="Saving…"
        busy={isSubmitting || update.isPending}
        tone="primary"
        watch={liveSave.watch((state) => state.replace('-', ' '), true)}
        onCancel={liveSave.close}
        onConfirm={() => {
          const values = pendingLive
          if (!values) return
          const confirmedLive = liveSave.subject?.state === 'published'
          liveSave.sent()
          void save(values, false, undefined, confirmedLive).finally(liveSave.close)
        }}
      >
        {liveSave.subject?.state === 'published' ? (
          <p>“{article?.headline}” is published{article?.url ? ` at ${article.url}` : ''}. Readers see your changes as soon as you save them, and subscribed systems are told.</p>
        ) : (
          <p>“{article?.headline}” is no longer live: saving changes the working copy only.</p>
        )}
        {pendingLive && dirtyFields.slug && (
          <p data-testid="address-move">
            Its address changes to the slug “{pendingLive.slug ?? slugify(pendingLive.headline)}”; the current address is kept and redirects to the new one.
          </p>
        )}
      </ConfirmDialog>
    </div>
  )
}
