import type { Article } from '../db/generated/client.ts'
import type { ArticleStatus } from '../db/generated/enums.ts'
import { ConflictError, ForbiddenError, ValidationError } from '../errors.ts'
import type { SqlTransaction } from '../db/sql-transaction.ts'
import type { Emit } from '../events/commit-change.ts'
import type { EventKind } from '../events/event-kinds.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { commitArticleChange } from './commit-article-change.ts'
import { noteOfMove, transitionOfWritten, updateOfReadArticle } from './article-writes.ts'
import { createId } from '../ids.ts'
import { writeArticle, type ArticleWriteEvent } from './article-write-statement.ts'
import { publishedAddress, withdrawnAddress } from './article-address.ts'
import { articleActionRefusal } from './article-action-refusal.ts'
import { assertMediaPublishable, unpublishableMedia } from '../media/publishable-media.ts'
import { leaseWriter } from './edit-lease.ts'
import { changeCurrentVersion, type ExpectedVersion } from './change-current-version.ts'
import { unexpectedStateRefusal } from './stale-version-refusal.ts'
import type { TransitionArticleInput } from './article-schemas.ts'
import { scheduledPublicationOutlook } from './scheduled-publication-outlook.ts'
import { allowedNextStates, canTransition, fromApiStatus, toApiStatus, type ApiStatus } from './article-status.ts'

/** `scheduleWarning`: why a publication just scheduled will not go live by itself (scheduledPublicationOutlook), or null. */
export type TransitionOutcome = { article: Article; scheduled: boolean; scheduleWarning: string | null }

/**
 * Moves an article through the workflow (contract: Articles, Transition). The move, its
 * history row and its events commit together, and only from the version that was checked,
 * so two simultaneous moves from one state cannot both succeed.
 */
export async function transitionArticle(
  actor: Actor,
  articleId: string,
  input: TransitionArticleInput,
  options: { expectedVersion?: ExpectedVersion; now?: Date; overrideLock?: boolean } = {},
): Promise<TransitionOutcome> {
  if (input.publish_at !== undefined && input.to_state !== 'published') {
    throw new ValidationError([{ field: 'publish_at', message: 'publish_at goes only with to_state = published.' }])
  }
  return changeCurrentVersion(actor.tenant.id, articleId, options.expectedVersion, leaseWriter(actor, input.override_lock ?? options.overrideLock), async (current) => {
    const now = options.now ?? new Date()
    // The state the person saw (a dialog's question was asked for it): judged before the
    // workflow table, so a move meant for another state is a 412, never a different move.
    if (input.expected_state !== undefined && toApiStatus(current.status) !== input.expected_state) throw unexpectedStateRefusal(current, fromApiStatus(input.expected_state), now)
    assertMoveAllowed(actor, current, input.to_state)
    const publishAt = input.publish_at ? new Date(input.publish_at) : undefined
    const schedule = input.to_state === 'published' && publishAt !== undefined && publishAt.getTime() > now.getTime()
    // A publication is refused while one of its images may not be published then (a schedule
    // is judged at its instant: an embargo ending before it is fine), judged in the move's
    // transaction on the images' locked rows (lib/media/publishable-media.ts).
    const judged = input.to_state === 'published' ? current.mediaIds : []
    const article = await commitArticleChange(
      actor.tenant.id,
      async (tx, emit) => {
        if (judged.length > 0) await assertMediaPublishable(actor.tenant.id, judged, schedule ? publishAt! : now, tx)
        return schedule ? scheduleInTransaction(tx, emit, actor, current, publishAt!, input.note) : moveInTransaction(tx, emit, actor, current, fromApiStatus(input.to_state), now, input.note)
      },
      { oneStatement: judged.length === 0 },
    )
    return article && { article, scheduled: schedule, scheduleWarning: schedule ? scheduledPublicationOutlook().warning : null }
  })
}

/**
 * An editor's "Approve and publish" of an article in review: the two moves the workflow makes
 * (in-review → approved → published), each judged by the same rules and recorded as its own
 * history row and events, committed together, so the article is never left approved alone.
 * With `expectedVersion` (the version the portal showed) a change made meanwhile is a 412.
 * A `note` goes with the publication, the move the person asked for by name.
 */
export async function approveAndPublish(
  actor: Actor,
  articleId: string,
  options: { expectedVersion?: ExpectedVersion; now?: Date; overrideLock?: boolean; note?: string } = {},
): Promise<Article> {
  return changeCurrentVersion(actor.tenant.id, articleId, options.expectedVersion, leaseWriter(actor, options.overrideLock), async (current) => {
    const now = options.now ?? new Date()
    assertMoveAllowed(actor, current, 'approved')
    assertMoveAllowed(actor, { ...current, status: 'approved' }, 'published')
    return commitArticleChange(actor.tenant.id, async (tx, emit) => {
      await assertMediaPublishable(actor.tenant.id, current.mediaIds, now, tx)
      const approved = await moveInTransaction(tx, emit, actor, current, 'approved', now)
      // A millisecond later, so the history lists the two moves in the order they were made.
      return approved && moveInTransaction(tx, emit, actor, approved, 'published', new Date(now.getTime() + 1), options.note)
    })
  })
}

/** The workflow's table first (409 naming where it can go), then who may move this article (articleActionRefusal, 403). */
function assertMoveAllowed(actor: Actor, article: Pick<Article, 'authorId' | 'status'>, to: ApiStatus): void {
  const from = toApiStatus(article.status)
  if (!canTransition(from, to)) {
    const allowed = allowedNextStates(from)
    throw new ConflictError('invalid_transition', `An article cannot move from ${from} to ${to}. From ${from} it can move to: ${allowed.join(', ')}.`, {
      from_state: from,
      allowed_to_states: allowed,
    })
  }
  const refusal = articleActionRefusal(actor.user, article, { kind: 'move', to })
  if (refusal) throw new ForbiddenError(refusal)
}

/** One workflow move of the version read: the article, its history row and its events, in one statement. */
async function moveInTransaction(tx: SqlTransaction, emit: Emit, actor: Actor, current: Article, to: ArticleStatus, now: Date, note?: string): Promise<Article | undefined> {
  const publishing = to === 'published'
  const update = updateOfReadArticle(
    current,
    {
      status: to,
      // Any move cancels a pending scheduled publication.
      scheduledPublishAt: null,
      ...(publishing && { publishedAt: now, ...publishedAddress(actor.tenant.publicSiteUrl, current) }),
      // Unpublishing takes the article off the site; published_at keeps when it last went out.
      ...(current.status === 'published' && to === 'draft' && withdrawnAddress(current)),
    },
    { sameStatus: true },
  )
  const kinds: EventKind[] = []
  if (to === 'published') kinds.push('article.published')
  if (current.status === 'published' && to === 'draft') kinds.push('article.unpublished')
  if (to === 'archived') kinds.push('article.archived')
  const events: ArticleWriteEvent[] = [
    {
      kind: 'workflow.transitioned',
      data: { article_id: current.id, from_state: toApiStatus(current.status), to_state: toApiStatus(to), actor_id: actor.user?.id ?? null },
      occurredAt: now,
    },
    ...kinds.map((kind) => ({ kind, record: true as const, occurredAt: now })),
  ]
  const transitionId = createId('trn')
  const history = transitionOfWritten({ id: transitionId, tenantId: actor.tenant.id, articleId: current.id, from: current.status, to, actorId: actor.user?.id ?? null, at: now })
  const noted = note ? [noteOfMove({ tenantId: actor.tenant.id, authorId: actor.user?.id ?? null, body: note, transitionId, at: now })] : []
  return writeArticle(tx, emit, actor.tenant.id, { ...update, companions: [history, ...noted], events })
}

async function scheduleInTransaction(tx: SqlTransaction, emit: Emit, actor: Actor, current: Article, publishAt: Date, note?: string): Promise<Article | undefined> {
  const transitionId = createId('trn')
  return writeArticle(tx, emit, actor.tenant.id, {
    ...updateOfReadArticle(current, { scheduledPublishAt: publishAt }, { sameStatus: true }),
    // The history shows the scheduling as an approved → published row carrying publish_at.
    companions: [
      transitionOfWritten({ id: transitionId, tenantId: actor.tenant.id, articleId: current.id, from: current.status, to: 'published', actorId: actor.user?.id ?? null, publishAt }),
      ...(note ? [noteOfMove({ tenantId: actor.tenant.id, authorId: actor.user?.id ?? null, body: note, transitionId, at: new Date() })] : []),
    ],
    events: [
      { kind: 'article.updated', record: true },
      { kind: 'article.publish_scheduled', data: { article_id: current.id, publish_at: publishAt.toISOString() } },
    ],
  })
}

/**
 * Called by the scheduled-publishing job at `scheduledFor`: publishes the article only if it
 * is still approved and still scheduled for exactly that instant, so a job for a schedule
 * that was cancelled or moved does nothing.
 */
export async function publishIfStillScheduled(
  actor: Actor,
  articleId: string,
  scheduledFor: Date,
  now = new Date(),
): Promise<{ published: boolean; article: Article | null }> {
  const tdb = tenantDb(actor.tenant.id)
  const current = await tdb.article.findUnique({ where: { id: articleId } })
  if (!current || current.status !== 'approved' || current.scheduledPublishAt?.getTime() !== scheduledFor.getTime()) {
    return { published: false, article: current }
  }
  // Images changed since it was scheduled (alt text removed, licence shortened, deleted): not
  // published; the article stays approved and scheduled, for an editor to see on the desk.
  // Judged in the move's transaction on the images' locked rows (lib/media/publishable-media.ts).
  const unpublishable = Symbol('unpublishable')
  const article = await commitArticleChange(
    actor.tenant.id,
    async (tx, emit) => {
      if (current.mediaIds.length > 0 && (await unpublishableMedia(actor.tenant.id, current.mediaIds, now, tx)).length > 0) return unpublishable
      return moveInTransaction(tx, emit, actor, current, 'published', now)
    },
    { oneStatement: current.mediaIds.length === 0 },
  )
  if (article === unpublishable) return { published: false, article: current }
  if (!article) return { published: false, article: await tdb.article.findUnique({ where: { id: articleId } }) }
  return { published: true, article }
}

/** Takes a pending scheduled publication back; the article stays approved. */
export async function cancelScheduledPublication(actor: Actor, articleId: string, options: { expectedVersion?: ExpectedVersion; overrideLock?: boolean } = {}): Promise<Article> {
  return changeCurrentVersion(actor.tenant.id, articleId, options.expectedVersion, leaseWriter(actor, options.overrideLock), async (current) => {
    const refusal = articleActionRefusal(actor.user, current, { kind: 'schedule' })
    if (refusal) throw new ForbiddenError(refusal)
    if (!current.scheduledPublishAt) return current
    return cancelReadSchedule(actor, current)
  })
}

/** Clears the schedule of the version read, with a history row naming it and the article.updated event. */
async function cancelReadSchedule(actor: Actor, current: Article): Promise<Article | undefined> {
  return commitArticleChange(
    actor.tenant.id,
    (tx, emit) =>
      writeArticle(tx, emit, actor.tenant.id, {
        ...updateOfReadArticle(current, { scheduledPublishAt: null }),
        companions: [
          transitionOfWritten({
            tenantId: actor.tenant.id,
            articleId: current.id,
            from: current.status,
            to: current.status,
            actorId: actor.user?.id ?? null,
            publishAt: current.scheduledPublishAt,
            scheduleCancelled: true,
          }),
        ],
        events: [{ kind: 'article.updated', record: true }],
      }),
    { oneStatement: true },
  )
}
