import { z } from 'zod'
import { listArticleHistory } from '../../articles/article-history.ts'
import { listRevisions, restoreRevision } from '../../articles/article-revisions.ts'
import { listRevisionsQuerySchema, revisionPathSchema } from '../../articles/revision-schemas.ts'
import { listArticleFilterOptions } from '../../articles/article-options.ts'
import { toArticleRecord } from '../../articles/article-record.ts'
import {
  articlePathSchema,
  createArticleSchema,
  listArticlesQuerySchema,
  transitionArticleSchema,
  updateArticleSchema,
} from '../../articles/article-schemas.ts'
import { createArticle } from '../../articles/create-article.ts'
import { getArticle } from '../../articles/get-article.ts'
import { listArticles } from '../../articles/list-articles.ts'
import { snippetParts } from '../../articles/search-articles.ts'
import { mayApproveAndPublish, mayManageSchedule, noMovesReason, offeredMoves } from '../../articles/offered-moves.ts'
import { approveAndPublish, cancelScheduledPublication, transitionArticle } from '../../articles/transition-article.ts'
import { updateArticle } from '../../articles/update-article.ts'
import { articleActionRefusal } from '../../articles/article-action-refusal.ts'
import type { WrittenArticle } from '../../articles/stored-body.ts'
import { domainInput } from '../domain-input.ts'
import { memberProcedure, router } from '../init.ts'
import { pageRecord } from '../../pagination.ts'
import { can } from '../../auth/permissions.ts'
import { askForEditLease, releaseEditLease } from '../../articles/edit-lease.ts'
import { leaseSessionSchema } from '../../articles/lease-schemas.ts'
import { addArticleNote, listArticleNotes } from '../../articles/article-notes.ts'
import { createPreviewLink, listPreviewLinks, revokePreviewLink } from '../../articles/preview-links.ts'
import { createPreviewLinkSchema } from '../../articles/preview-link-schemas.ts'
import { scheduledPublicationOutlook } from '../../articles/scheduled-publication-outlook.ts'
import { createNoteSchema, listNotesQuerySchema } from '../../articles/note-schemas.ts'

const articleId = z.strictObject({ article_id: articlePathSchema.shape.article_id })
/** The article version the page showed when the person acted: what a write or move asks to replace. */
const version = z.number().int().min(1)

// In the portal the author is the person signed in, so the editor never sends author_id.
const portalCreateSchema = createArticleSchema.omit({ author_id: true })
const portalChangesSchema = updateArticleSchema.omit({ author_id: true, status: true })

/** The saved article, and what the body allow-list removed from the body sent, for the editor to show. */
function writtenRecord(article: WrittenArticle) {
  return { ...toArticleRecord(article), body_removed: article.bodyRemoved }
}

/**
 * The editors' workflow. Every procedure is open to every member: what a role may do is the
 * domain's decision (transitionArticle, cancelScheduledPublication), not the router's, so the
 * portal and /v1 refuse the same moves with the same words.
 */
export const articlesRouter = router({
  list: memberProcedure.input(domainInput(listArticlesQuerySchema)).query(async ({ ctx, input }) => {
    const page = await listArticles(ctx.actor, input)
    return pageRecord(page, (article) => ({
      ...toArticleRecord(article),
      match: article.match ? { rank: article.match.rank, snippet: snippetParts(article.match.snippet) } : null,
    }))
  }),

  filterOptions: memberProcedure.query(({ ctx }) => listArticleFilterOptions(ctx.actor)),

  get: memberProcedure.input(domainInput(articleId)).query(async ({ ctx, input }) => {
    const row = await getArticle(ctx.actor, input.article_id)
    // What to offer is asked of the rule that refuses (articleActionRefusal), never decided here.
    const user = ctx.actor.user
    return {
      article: toArticleRecord(row),
      moves: offeredMoves(user, row),
      noMovesReason: noMovesReason(user, row),
      canManageSchedule: mayManageSchedule(user, row),
      canApproveAndPublish: mayApproveAndPublish(user, row),
      readOnlyReason: articleActionRefusal(user, row, { kind: 'edit' }),
      canPreviewOnSite: can(ctx.actor, 'articles:write'),
      // Whether a schedule made now goes live by itself: the schedule form warns before it is sent.
      scheduleWarning: scheduledPublicationOutlook().warning,
    }
  }),

  /**
   * The editor's lease: taken when it opens, renewed by its heartbeat. Someone else's live lease
   * is an answer here, not a failure (the page offers read-only or take over); `take_over` takes it.
   */
  lease: memberProcedure
    .input(domainInput(articleId.extend({ take_over: z.boolean().optional(), session: leaseSessionSchema.optional() })))
    .mutation(({ ctx, input }) => askForEditLease(ctx.actor, input.article_id, { takeOver: input.take_over, session: input.session })),

  /** The page lets go of its session's claim (saved, discarded or left): another tab of the same person with unsaved edits keeps the lease. */
  releaseLease: memberProcedure
    .input(domainInput(articleId.extend({ session: leaseSessionSchema.optional() })))
    .mutation(({ ctx, input }) => releaseEditLease(ctx.actor, input.article_id, { session: input.session })),

  notes: memberProcedure
    .input(domainInput(articleId.extend(listNotesQuerySchema.shape)))
    .query(async ({ ctx, input }) => pageRecord(await listArticleNotes(ctx.actor, input.article_id, input), (note) => note)),

  addNote: memberProcedure
    .input(domainInput(articleId.extend(createNoteSchema.shape)))
    .mutation(({ ctx, input }) => addArticleNote(ctx.actor, input.article_id, input.body)),

  previewLinks: memberProcedure.input(domainInput(articleId)).query(({ ctx, input }) => listPreviewLinks(ctx.actor, input.article_id)),

  createPreviewLink: memberProcedure
    .input(domainInput(articleId.extend(createPreviewLinkSchema.shape)))
    .mutation(({ ctx, input }) => createPreviewLink(ctx.actor, input.article_id, input)),

  revokePreviewLink: memberProcedure
    .input(domainInput(articleId.extend({ preview_link_id: z.string().min(1).max(200) })))
    .mutation(({ ctx, input }) => revokePreviewLink(ctx.actor, input.article_id, input.preview_link_id)),

  history: memberProcedure.input(domainInput(articleId)).query(({ ctx, input }) => listArticleHistory(ctx.actor, input.article_id)),

  revisions: memberProcedure
    .input(domainInput(articleId.extend(listRevisionsQuerySchema.shape)))
    .query(async ({ ctx, input }) => pageRecord(await listRevisions(ctx.actor, input.article_id, input), (revision) => revision)),

  /** Restores from the version the editor loaded, like a save: a change made meanwhile is a 412. */
  restoreRevision: memberProcedure
    .input(domainInput(revisionPathSchema.extend({ version })))
    .mutation(async ({ ctx, input }) =>
      writtenRecord(await restoreRevision(ctx.actor, input.article_id, input.revision_id, { expectedVersion: input.version })),
    ),

  create: memberProcedure.input(domainInput(portalCreateSchema)).mutation(async ({ ctx, input }) => writtenRecord(await createArticle(ctx.actor, input))),

  /** Saves from the version the editor loaded: a change made meanwhile by someone else is a 412, never overwritten. */
  update: memberProcedure
    .input(domainInput(z.strictObject({ article_id: articleId.shape.article_id, version, changes: portalChangesSchema })))
    .mutation(async ({ ctx, input }) =>
      writtenRecord(await updateArticle(ctx.actor, input.article_id, input.changes, { expectedVersion: input.version })),
    ),

  // Every move carries the version the page showed, as a save does: a click on a page someone
  // else's change has outdated (an "In review" page after the article went live) is a 412 saying
  // what happened, never a move from a state the person did not see.
  transition: memberProcedure
    .input(domainInput(transitionArticleSchema.extend({ article_id: articleId.shape.article_id, version })))
    .mutation(async ({ ctx, input }) => {
      const { article_id, version: expectedVersion, ...move } = input
      const outcome = await transitionArticle(ctx.actor, article_id, move, { expectedVersion })
      return { article: toArticleRecord(outcome.article), scheduled: outcome.scheduled, schedule_warning: outcome.scheduleWarning }
    }),

  /** Approve and publish an article in review in one action: two recorded moves, the same rules; a note goes with the publication. */
  approveAndPublish: memberProcedure
    .input(domainInput(articleId.extend({ version, note: transitionArticleSchema.shape.note })))
    .mutation(async ({ ctx, input }) =>
      toArticleRecord(await approveAndPublish(ctx.actor, input.article_id, { expectedVersion: input.version, ...(input.note !== undefined && { note: input.note }) })),
    ),

  cancelSchedule: memberProcedure
    .input(domainInput(articleId.extend({ version })))
    .mutation(async ({ ctx, input }) => toArticleRecord(await cancelScheduledPublication(ctx.actor, input.article_id, { expectedVersion: input.version }))),
})
