import { toArticleRecord } from '../../articles/article-record.ts'
import type { ArticleSection } from '../../desk/read-desk.ts'
import { readDesk } from '../../desk/read-desk.ts'
import { toWebhookRecord } from '../../webhooks/webhook-record.ts'
import { memberProcedure, router } from '../init.ts'

const articleSection = ({ total, items }: ArticleSection) => ({ total, items: items.map(toArticleRecord) })

/** The home page: readDesk decides what each member sees; this only puts it on the wire. */
export const deskRouter = router({
  get: memberProcedure.query(async ({ ctx }) => {
    const desk = await readDesk({ ...ctx.actor, user: { id: ctx.member.id, role: ctx.member.role } })
    return {
      drafts: articleSection(desk.drafts),
      returned: desk.returned.items.map((article) => ({ ...toArticleRecord(article), returned_at: article.returnedAt.toISOString() })),
      review: desk.review && articleSection(desk.review),
      upcoming: desk.upcoming?.items.map(toArticleRecord),
      published: desk.published && articleSection(desk.published),
      attention: desk.attention && {
        webhooks: desk.attention.webhooks.map(({ subscription, lastDelivery, reason }) => ({
          ...toWebhookRecord(subscription),
          reason,
          last_delivery: lastDelivery && { at: lastDelivery.at.toISOString(), response_status: lastDelivery.responseStatus, error: lastDelivery.error },
        })),
        keys: desk.attention.keys.map(({ key, reason }) => ({
          key_id: key.id,
          name: key.name,
          prefix: key.prefix,
          owner_name: key.ownerName,
          created_at: key.createdAt.toISOString(),
          reason,
        })),
      },
    }
  }),
})
