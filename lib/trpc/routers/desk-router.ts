import { toArticleRecord } from '../../articles/article-record.ts'
import type { ArticleSection } from '../../desk/read-desk.ts'
import { readDesk } from '../../desk/read-desk.ts'
import { toWebhookRecordWithLastDelivery } from '../../webhooks/webhook-record.ts'
import { memberProcedure, router } from '../init.ts'
import { toApiKeyView } from './api-keys-router.ts'

const articleSection = ({ total, items }: ArticleSection) => ({ total, items: items.map(toArticleRecord) })

/** The home page: readDesk decides what each member sees; this only puts it on the wire. */
export const deskRouter = router({
  get: memberProcedure.query(async ({ ctx }) => {
    const desk = await readDesk(ctx.actor)
    return {
      drafts: articleSection(desk.drafts),
      returned: desk.returned.items.map((article) => ({ ...toArticleRecord(article), returned_at: article.returnedAt.toISOString(), returned_by: article.returnedBy, return_note: article.returnNote })),
      taken_down: desk.takenDown.items.map((article) => ({
        ...toArticleRecord(article),
        taken_down_at: article.takenDownAt.toISOString(),
        taken_down_by: article.takenDownBy,
        take_down_note: article.takeDownNote,
      })),
      expiring_licences: {
        total: desk.expiringLicences.total,
        items: desk.expiringLicences.items.map((item) => ({
          media_id: item.mediaId,
          filename: item.filename,
          credit: item.credit,
          expires_at: item.expiresAt.toISOString(),
          expired: item.expired,
          articles: item.articles.map((article) => ({ article_id: article.id, headline: article.headline })),
        })),
      },
      image_problems: desk.imageProblems,
      review: desk.review && articleSection(desk.review),
      upcoming: desk.upcoming?.items.map(toArticleRecord),
      will_not_go_live: desk.willNotGoLive && { items: desk.willNotGoLive.items.map(toArticleRecord), reason: desk.willNotGoLive.reason },
      overdue: desk.overdue && { ...articleSection(desk.overdue), reason: desk.overdue.reason },
      in_review: desk.inReview && articleSection(desk.inReview),
      published: desk.published && articleSection(desk.published),
      attention: desk.attention && {
        // The same shapes as the Webhooks and API Keys pages, with why each needs attention.
        webhooks: desk.attention.webhooks.map(({ subscription, lastDelivery, reason }) => ({
          ...toWebhookRecordWithLastDelivery(subscription, lastDelivery),
          reason,
          // Whether the failure will be retried, and when: a test is sent once, and retries run out.
          last_delivery_was_test: lastDelivery?.test ?? false,
          next_attempt_at: lastDelivery?.nextAttemptAt?.toISOString() ?? null,
        })),
        keys: desk.attention.keys.map(({ key, reason }) => ({ ...toApiKeyView(key), reason })),
        backlog: {
          queue: desk.attention.backlog.queue,
          waiting: desk.attention.backlog.waiting,
          oldest_waiting_seconds: desk.attention.backlog.oldestWaitingSeconds,
          advice: desk.attention.backlog.advice,
          scheduled_publications: desk.attention.backlog.scheduledPublications,
          other_events: desk.attention.backlog.otherEvents,
          overdue_publications: desk.attention.backlog.overduePublications,
        },
      },
    }
  }),
})
