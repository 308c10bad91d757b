import { publishIfStillScheduled } from '../../lib/articles/transition-article.ts'
import { systemActor } from '../../lib/tenancy/system-actor.ts'
import { inngest } from '../client.ts'
import { publishScheduledEvent } from '../events.ts'

/**
 * Publishes an article at its publish_at. Scheduling records an internal outbox event; this
 * run sleeps until then and publishes only if the article is still scheduled for exactly
 * that instant, so a cancelled or moved schedule leaves a run that does nothing.
 */
export const publishScheduledArticle = inngest.createFunction(
  { id: 'publish-scheduled-article', name: 'Publish a scheduled article', triggers: [publishScheduledEvent] },
  async ({ event, step }) => {
    const { tenant_id: tenantId, data } = event.data
    await step.sleepUntil('wait-until-publish-at', data.publish_at)
    return step.run('publish-if-still-scheduled', async () => {
      const actor = await systemActor(tenantId)
      if (!actor) return { articleId: data.article_id, published: false }
      const result = await publishIfStillScheduled(actor, data.article_id, new Date(data.publish_at))
      return { articleId: data.article_id, published: result.published }
    })
  },
)
