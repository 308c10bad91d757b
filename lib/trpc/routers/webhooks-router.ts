import type { WebhookSubscription } from '../../db/generated/client.ts'
import { z } from 'zod'
import { listDeliveries, toDeliveryRecord } from '../../webhooks/deliveries-log.ts'
import { toWebhookRecordWithLastDelivery } from '../../webhooks/webhook-record.ts'
import type { DeliveryRecord } from '../../webhooks/webhook-schemas.ts'
import { pageRecord } from '../../pagination.ts'
import { lastDeliveryResults } from '../../webhooks/last-delivery-results.ts'
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from '../../webhooks/manage-subscriptions.ts'
import { redeliver, sendTestEvent, toManualDeliveryRecord, toTestDeliveryRecord } from '../../webhooks/manual-deliveries.ts'
import { rotateWebhookSecret } from '../../webhooks/rotate-secret.ts'
import { webhookOverview } from '../../webhooks/webhook-overview.ts'
import { standardWebhooksSecret } from '../../webhooks/sign-payload.ts'
import { createWebhookSchema, listDeliveriesQuerySchema, testEventBodySchema, updateWebhookSchema, webhookIdSchema } from '../../webhooks/webhook-schemas.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'
import type { Actor } from '../../tenancy/actor.ts'

const procedure = scopedProcedure('webhooks:manage')

const webhookIdInput = z.object({ webhookId: webhookIdSchema })

export type WebhookView = ReturnType<typeof toWebhookRecordWithLastDelivery>
export type { DeliveryRecord as DeliveryView }

async function withLastDelivery(actor: Actor, subscription: WebhookSubscription) {
  const last = await lastDeliveryResults(actor, [subscription.id])
  return toWebhookRecordWithLastDelivery(subscription, last.get(subscription.id))
}

export const webhooksRouter = router({
  list: procedure.query(async ({ ctx }) => {
    const page = await listWebhooks(ctx.actor, { limit: 200, offset: 0 })
    const last = await lastDeliveryResults(ctx.actor, page.items.map((item) => item.id))
    return { items: page.items.map((item) => toWebhookRecordWithLastDelivery(item, last.get(item.id))), total: page.total }
  }),

  get: procedure.input(domainInput(webhookIdInput)).query(async ({ ctx, input }) => withLastDelivery(ctx.actor, await getWebhook(ctx.actor, input.webhookId))),

  create: procedure.input(domainInput(createWebhookSchema)).mutation(async ({ ctx, input }) => toWebhookRecordWithLastDelivery(await createWebhook(ctx.actor, input), undefined)),

  /** url, events, and a new secret only when one is given (the current one is never shown). */
  update: procedure
    .input(domainInput(updateWebhookSchema.omit({ status: true }).extend({ webhookId: webhookIdSchema })))
    .mutation(async ({ ctx, input }) => {
      const { webhookId, ...changes } = input
      return withLastDelivery(ctx.actor, await updateWebhook(ctx.actor, webhookId, changes))
    }),

  reenable: procedure
    .input(domainInput(webhookIdInput))
    .mutation(async ({ ctx, input }) => withLastDelivery(ctx.actor, await updateWebhook(ctx.actor, input.webhookId, { status: 'enabled' }))),

  /** The one answer that carries the new secret; the portal shows it once. */
  rotateSecret: procedure.input(domainInput(webhookIdInput)).mutation(async ({ ctx, input }) => {
    const { subscription, secret } = await rotateWebhookSecret(ctx.actor, input.webhookId)
    return { webhook: await withLastDelivery(ctx.actor, subscription), secret, standardWebhooksSecret: standardWebhooksSecret(secret) }
  }),

  /** Deliveries wait while paused and go out on resume (unlike a disabled subscription's). */
  pause: procedure
    .input(domainInput(webhookIdInput))
    .mutation(async ({ ctx, input }) => withLastDelivery(ctx.actor, await updateWebhook(ctx.actor, input.webhookId, { status: 'paused' }))),

  resume: procedure
    .input(domainInput(webhookIdInput))
    .mutation(async ({ ctx, input }) => withLastDelivery(ctx.actor, await updateWebhook(ctx.actor, input.webhookId, { status: 'enabled' }))),

  delete: procedure.input(domainInput(webhookIdInput)).mutation(async ({ ctx, input }) => {
    await deleteWebhook(ctx.actor, input.webhookId)
    return { webhookId: input.webhookId }
  }),

  /** Delivered at once, not through the queue, so the answer says how the receiver responded. */
  overview: procedure.input(domainInput(webhookIdInput)).query(({ ctx, input }) => webhookOverview(ctx.actor, input.webhookId)),

  sendTest: procedure
    .input(domainInput(webhookIdInput.extend(testEventBodySchema.shape)))
    .mutation(async ({ ctx, input }) => toTestDeliveryRecord(await sendTestEvent(ctx.actor, input.webhookId, input.event))),

  deliveries: procedure
    .input(domainInput(listDeliveriesQuerySchema.extend({ webhookId: webhookIdSchema })))
    .query(async ({ ctx, input }) => {
      const { webhookId, ...page } = input
      return pageRecord(await listDeliveries(ctx.actor, webhookId, page), toDeliveryRecord)
    }),

  redeliver: procedure
    .input(domainInput(z.object({ deliveryId: z.string().min(1) })))
    .mutation(async ({ ctx, input }) => toManualDeliveryRecord(await redeliver(ctx.actor, input.deliveryId))),
})
