import type { Article, WebhookSubscription } from '../db/generated/client.ts'
import { listReturnedFromReview, listUpcomingPublications, type ReturnedArticle } from '../articles/desk-article-lists.ts'
import { listArticlesQuerySchema } from '../articles/article-schemas.ts'
import { listArticles } from '../articles/list-articles.ts'
import type { Actor } from '../tenancy/actor.ts'
import { can } from '../auth/permissions.ts'
import { listApiTokens, type ApiTokenSummary } from '../tokens/api-tokens.ts'
import { lastDeliveryResults, type LastDeliveryResult } from '../webhooks/last-delivery-results.ts'
import { listWebhooks } from '../webhooks/manage-subscriptions.ts'
import { maxWebhookPageSize } from '../webhooks/webhook-schemas.ts'

const shown = 5
const upcomingWindowMs = 24 * 60 * 60 * 1000

export type ArticleSection = { total: number; items: Article[] }
export type WebhookNeedingAttention = { subscription: WebhookSubscription; lastDelivery: LastDeliveryResult | null; reason: 'disabled' | 'paused' | 'failing' }
export type KeyNeedingAttention = { key: ApiTokenSummary; reason: 'owner_inactive' | 'rotation_due' }

/** What a member starts the day with; a section is absent when the member's permissions have no use for it. */
export type Desk = {
  /** Everyone who writes: their drafts, and those of them that came back from review. */
  drafts: ArticleSection
  returned: { items: ReturnedArticle[] }
  /** Members who decide (articles:write): what waits for a decision, what goes live soon, what just went live. */
  review?: ArticleSection
  upcoming?: { items: Article[] }
  published?: ArticleSection
  /** Admins: the integrations that are not working or need looking after. */
  attention?: { webhooks: WebhookNeedingAttention[]; keys: KeyNeedingAttention[] }
}

/**
 * The member's home page. The article counts come from the list's own query (listArticles), so
 * "3 in review" on the desk and the list filtered to in-review never disagree.
 */
export async function readDesk(actor: Actor & { user: NonNullable<Actor['user']> }, now = new Date()): Promise<Desk> {
  const tenantId = actor.tenant.id
  const page = (filter: { status: 'draft' | 'in-review' | 'published'; author_id?: string }) =>
    listArticles(actor, listArticlesQuerySchema.parse({ ...filter, limit: shown })).then(({ items, total }): ArticleSection => ({ items, total }))

  const decides = can(actor, 'articles:write')
  const administers = can(actor, 'admin')
  const [drafts, returned, review, upcoming, published, attention] = await Promise.all([
    page({ status: 'draft', author_id: actor.user.id }),
    listReturnedFromReview(tenantId, { authorId: actor.user.id, limit: shown }),
    decides ? page({ status: 'in-review' }) : undefined,
    decides ? listUpcomingPublications(tenantId, { until: new Date(now.getTime() + upcomingWindowMs), limit: shown }) : undefined,
    decides ? page({ status: 'published' }) : undefined,
    administers ? integrationsNeedingAttention(actor) : undefined,
  ])
  return {
    drafts,
    returned: { items: returned },
    ...(review && { review }),
    ...(upcoming && { upcoming: { items: upcoming } }),
    ...(published && { published }),
    ...(attention && { attention }),
  }
}

// One full page: a newsroom may have no more subscriptions than that (WEBHOOK_MAX_SUBSCRIPTIONS,
// 50 by default), unless it had more before the limit existed.
async function integrationsNeedingAttention(actor: Actor): Promise<NonNullable<Desk['attention']>> {
  const [subscriptions, keys] = await Promise.all([listWebhooks(actor, { limit: maxWebhookPageSize, offset: 0 }), listApiTokens(actor)])
  const results = await lastDeliveryResults(
    actor,
    subscriptions.items.map((subscription) => subscription.id),
  )
  const webhooks: WebhookNeedingAttention[] = []
  for (const subscription of subscriptions.items) {
    const lastDelivery = results.get(subscription.id) ?? null
    const reason = subscription.status !== 'enabled' ? subscription.status : lastDelivery && !lastDelivery.succeeded ? 'failing' : null
    if (reason) webhooks.push({ subscription, lastDelivery, reason })
  }
  const keysNeedingAttention: KeyNeedingAttention[] = []
  for (const key of keys) {
    if (key.revokedAt) continue
    if (!key.ownerActive) keysNeedingAttention.push({ key, reason: 'owner_inactive' })
    else if (key.rotationRecommended) keysNeedingAttention.push({ key, reason: 'rotation_due' })
  }
  return { webhooks, keys: keysNeedingAttention }
}
