import type { Article, WebhookSubscription } from '../db/generated/client.ts'
import { listOverduePublications, listReturnedFromReview, listTakenDown, listUpcomingPublications, type ReturnedArticle, type TakenDownArticle } from '../articles/desk-article-lists.ts'
import { eventQueueHealth, eventQueueState, type EventQueueHealth, type EventQueueState } from '../ops/event-queue-health.ts'
import { waitingEventCounts } from '../ops/waiting-events.ts'
import { scheduledPublicationOutlook } from '../articles/scheduled-publication-outlook.ts'
import { listArticlesQuerySchema } from '../articles/article-schemas.ts'
import { listArticles } from '../articles/list-articles.ts'
import type { Actor } from '../tenancy/actor.ts'
import { can } from '../auth/permissions.ts'
import { listApiTokens, type ApiTokenSummary } from '../tokens/api-tokens.ts'
import { lastDeliveryResults, type LastDeliveryResult } from '../webhooks/last-delivery-results.ts'
import { listWebhooks } from '../webhooks/manage-subscriptions.ts'
import { listExpiringLicences, type ExpiringLicence } from '../media/expiring-licences.ts'
import { unpublishableMedia } from '../media/publishable-media.ts'
import { maxWebhookPageSize } from '../webhooks/webhook-schemas.ts'

const shown = 5
const upcomingWindowMs = 24 * 60 * 60 * 1000
// "Every schedule still ahead": the latest instant both JavaScript and PostgreSQL hold.
const endOfTime = new Date('9999-12-31T23:59:59.999Z')

export type ArticleSection = { total: number; items: Article[] }
export type WebhookNeedingAttention = { subscription: WebhookSubscription; lastDelivery: LastDeliveryResult | null; reason: 'disabled' | 'paused' | 'failing' }
export type KeyNeedingAttention = { key: ApiTokenSummary; reason: 'owner_inactive' | 'rotation_due' }
/** Events not yet handed to the queue, and what they hold up. */
export type OutboxBacklog = EventQueueHealth & { scheduledPublications: number; otherEvents: number; overduePublications: number }

/** Why scheduled publications did not happen at their time, and what to do, as far as this process knows. */
export function overdueReason(queue: EventQueueState): string {
  if (queue === 'not_configured')
    return 'No event queue (Inngest) is configured, so scheduled publications do not run. Publish it now, or reschedule once an admin has set Inngest up.'
  if (queue === 'failing') return 'The event queue (Inngest) is unreachable, so scheduled publications wait. Publish it now, or reschedule; it goes out when the queue answers again.'
  return 'Its scheduled publication has not run yet. Publish it now if it cannot wait, or reschedule it.'
}

/** What a member starts the day with; a section is absent when the member's permissions have no use for it. */
export type Desk = {
  /** Everyone who writes: their drafts, and those of them that came back from review. */
  drafts: ArticleSection
  returned: { items: ReturnedArticle[] }
  /** Their stories taken off the site (unpublished or archived while live), with who did it and why. */
  takenDown: { items: TakenDownArticle[] }
  /** Members who decide (articles:write): what waits for a decision, what goes live soon, what just went live. */
  review?: ArticleSection
  upcoming?: { items: Article[] }
  /**
   * Scheduled publications still ahead that will not go live by themselves (no event queue, or
   * it is unreachable: scheduledPublicationOutlook), with why. When present, upcoming is empty:
   * nothing is "going live" that nobody will publish.
   */
  willNotGoLive?: { items: Article[]; reason: string }
  /** Approved articles whose scheduled time passed without their going live, with why and what to do. */
  overdue?: { total: number; items: Article[]; reason: string }
  /** A member who does not decide: their own articles waiting in review. */
  inReview?: ArticleSection
  published?: ArticleSection
  /**
   * Images in live articles whose licence ends within 7 days or has ended (then withheld from the
   * site): every article for members who decide, their own articles' for the others.
   */
  expiringLicences: { total: number; items: ExpiringLicence[] }
  /**
   * For scheduled (upcoming or overdue) articles whose images may not be published at their
   * time (deleted, alt text cleared, embargo, licence ending first): why, by article id. The
   * publication job skips such an article silently (publishIfStillScheduled), so the desk must say.
   */
  imageProblems: Record<string, string>
  /** Admins: the integrations that are not working or need looking after. */
  attention?: { webhooks: WebhookNeedingAttention[]; keys: KeyNeedingAttention[]; backlog: OutboxBacklog }
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
  const outlook = scheduledPublicationOutlook()
  const [drafts, returned, takenDown, review, inReview, upcoming, overdue, published, attention, expiringLicences] = await Promise.all([
    page({ status: 'draft', author_id: actor.user.id }),
    listReturnedFromReview(tenantId, { authorId: actor.user.id, limit: shown }),
    listTakenDown(tenantId, { authorId: actor.user.id, limit: shown }),
    decides ? page({ status: 'in-review' }) : undefined,
    decides ? undefined : page({ status: 'in-review', author_id: actor.user.id }),
    decides ? listUpcomingPublications(tenantId, { from: now, until: outlook.runs ? new Date(now.getTime() + upcomingWindowMs) : endOfTime, limit: shown }) : undefined,
    decides || administers ? listOverduePublications(tenantId, { now, limit: shown }) : undefined,
    decides ? page({ status: 'published' }) : undefined,
    administers ? integrationsNeedingAttention(actor) : undefined,
    listExpiringLicences(tenantId, { now, authorId: decides ? undefined : actor.user.id, limit: shown }),
  ])
  const scheduled = [...(upcoming ?? []), ...(overdue?.items ?? [])]
  const imageProblems: Record<string, string> = {}
  await Promise.all(
    scheduled.map(async (article) => {
      const at = article.scheduledPublishAt && article.scheduledPublishAt > now ? article.scheduledPublishAt : now
      const refused = await unpublishableMedia(tenantId, article.mediaIds, at)
      if (refused.length > 0) imageProblems[article.id] = refused.map((item) => `${item.filename ?? item.media_id}: ${item.reason}`).join('; ')
    }),
  )
  return {
    imageProblems,
    drafts,
    returned: { items: returned },
    takenDown: { items: takenDown },
    expiringLicences,
    ...(review && { review }),
    ...(inReview && { inReview }),
    ...(upcoming && (outlook.runs ? { upcoming: { items: upcoming } } : { upcoming: { items: [] }, willNotGoLive: { items: upcoming, reason: outlook.warning } })),
    ...(overdue && decides && { overdue: { ...overdue, reason: overdueReason(eventQueueState()) } }),
    ...(published && { published }),
    ...(attention && { attention: { ...attention, backlog: { ...attention.backlog, overduePublications: overdue?.total ?? 0 } } }),
  }
}

// One full page: a newsroom may have no more subscriptions than that (WEBHOOK_MAX_SUBSCRIPTIONS,
// 50 by default), unless it had more before the limit existed.
async function integrationsNeedingAttention(actor: Actor): Promise<NonNullable<Desk['attention']>> {
  const [subscriptions, keys, health, counts] = await Promise.all([
    listWebhooks(actor, { limit: maxWebhookPageSize, offset: 0 }),
    listApiTokens(actor),
    eventQueueHealth(actor),
    waitingEventCounts(actor),
  ])
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
  return { webhooks, keys: keysNeedingAttention, backlog: { ...health, scheduledPublications: counts.scheduledPublications, otherEvents: counts.other, overduePublications: 0 } }
}
