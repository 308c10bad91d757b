import type { Prisma, WebhookSubscription } from '../db/generated/client.ts'
import { recordAudit } from '../audit.ts'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'
import { commitChange, type ChangeTransaction } from '../events/commit-change.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { encryptSecret } from '../security/secret-box.ts'
import { checkWebhookUrl } from './url-safety.ts'
import { maxWebhookPageSize, type CreateWebhookInput, type ListWebhooksQuery, type UpdateWebhookInput } from './webhook-schemas.ts'
import { newestFirstPage } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'

export type WebhookPage = Page<WebhookSubscription>

const targetType = 'webhook'

async function assertSafeUrl(url: string): Promise<void> {
  const problem = await checkWebhookUrl(url)
  if (problem) throw new ValidationError([{ field: 'url', message: problem }])
}

/** The filter's departments must be the newsroom's: an unknown id (another newsroom's included) is a 422 naming it. */
async function assertOwnDepartments(tenantId: string, departmentIds: readonly string[] | undefined): Promise<void> {
  if (!departmentIds || departmentIds.length === 0) return
  const found = await tenantDb(tenantId).department.findMany({ where: { id: { in: [...departmentIds] } }, select: { id: true } })
  const known = new Set(found.map((department) => department.id))
  const errors = departmentIds.flatMap((id, index) => (known.has(id) ? [] : [{ field: `department_ids.${index}`, message: `No department with id '${id}' exists in this newsroom.` }]))
  if (errors.length > 0) throw new ValidationError(errors)
}

/** The filter fields of an input, as stored (only those sent). */
function filterData(input: Pick<CreateWebhookInput, 'department_ids' | 'tags' | 'statuses'>) {
  return {
    ...(input.department_ids !== undefined && { departmentIds: input.department_ids }),
    ...(input.tags !== undefined && { tags: input.tags }),
    ...(input.statuses !== undefined && { statuses: input.statuses }),
  }
}

function filterMetadata(subscription: WebhookSubscription) {
  return { department_ids: subscription.departmentIds, tags: subscription.tags, statuses: subscription.statuses }
}

/** Creates a subscription owned by the acting user (for a token: the token's owner). */
export async function createWebhook(actor: Actor, input: CreateWebhookInput): Promise<WebhookSubscription> {
  assertCan(actor, 'webhooks:manage')
  const ownerId = actor.user?.id
  if (!ownerId) throw new ForbiddenError('A webhook subscription needs a person as its owner; the system cannot create one.')
  await assertSafeUrl(input.url)
  await assertOwnDepartments(actor.tenant.id, input.department_ids)
  // Through commitChange, which records the subscription on the request's Idempotency-Key in the
  // same transaction: a retry after a crash past the commit answers with it, not a second one.
  return commitChange(tenantDb(actor.tenant.id), actor.tenant.id, async (tx) => {
    await assertRoomForSubscription(tx, actor.tenant.id)
    const subscription = await tx.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: actor.tenant.id, url: input.url, events: input.events, ...filterData(input), secretEncrypted: encryptSecret(input.secret), ownerId },
    })
    await recordAudit(tx, {
      tenantId: actor.tenant.id,
      actorId: ownerId,
      action: 'webhook.created',
      targetType,
      targetId: subscription.id,
      metadata: { url: subscription.url, events: subscription.events, ...filterMetadata(subscription) },
    })
    return subscription
  })
}

/** At most a list page's maximum, so that one page shows all of a newsroom's subscriptions (the desk reads one such page). */
export function maxSubscriptionsPerNewsroom(): number {
  const configured = Number(process.env.WEBHOOK_MAX_SUBSCRIPTIONS ?? 50)
  return Number.isSafeInteger(configured) && configured > 0 ? Math.min(configured, maxWebhookPageSize) : 50
}

/**
 * Every event fans out to each matching subscription (a queued run and an outbound request
 * each), so their number is bounded per newsroom, as Stripe and GitHub bound theirs. Creations
 * are serialised per newsroom (a transaction-scoped advisory lock, not the tenant row, which
 * other writes update) so that two at once cannot both take the last place.
 */
async function assertRoomForSubscription(tx: ChangeTransaction, tenantId: string): Promise<void> {
  // The count below sees what the lock's previous holder committed only at READ COMMITTED (the
  // default): a stricter isolation level would take its snapshot before waiting for the lock.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-subscriptions:${tenantId}`}, 0))`
  const limit = maxSubscriptionsPerNewsroom()
  const existing = await tx.webhookSubscription.count()
  if (existing >= limit) {
    throw new ConflictError('webhook_limit_reached', `This newsroom has ${existing} webhook subscriptions, the most it may have (${limit}). Delete one it no longer needs, or add event kinds to an existing one.`, { limit })
  }
}

/** Newest first; created_at then id, so walking the pages returns each subscription once. */
export async function listWebhooks(actor: Actor, query: ListWebhooksQuery): Promise<WebhookPage> {
  assertCan(actor, 'webhooks:manage')
  const tdb = tenantDb(actor.tenant.id)
  return newestFirstPage({ tenantId: actor.tenant.id, list: 'webhooks', filter: {} }, query, (row) => row.createdAt.getTime(), (after) =>
    Promise.all([
      tdb.webhookSubscription.findMany({ where: after ? { OR: [{ createdAt: { lt: new Date(after.key) } }, { createdAt: new Date(after.key), id: { lt: after.id } }] } : {}, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: after ? 0 : query.offset, take: query.limit }),
      tdb.webhookSubscription.count(),
    ]),
  )
}

/** The tenant's subscription, or a 404: another tenant's id looks exactly like a missing one. */
export async function getWebhook(actor: Actor, webhookId: string): Promise<WebhookSubscription> {
  assertCan(actor, 'webhooks:manage')
  const subscription = await tenantDb(actor.tenant.id).webhookSubscription.findUnique({ where: { id: webhookId } })
  if (!subscription) throw new NotFoundError('webhook', webhookId)
  return subscription
}

/**
 * Changes url, events or secret; `status: "paused"` pauses an enabled subscription, and
 * `status: "enabled"` resumes a paused one or re-enables a disabled one. Deliveries still
 * waiting for a retry use the new url and secret; deliveries held by a pause are re-requested
 * by the delivery sweeper once it is enabled again.
 */
export async function updateWebhook(actor: Actor, webhookId: string, input: UpdateWebhookInput): Promise<WebhookSubscription> {
  const tdb = tenantDb(actor.tenant.id)
  const current = await getWebhook(actor, webhookId)
  if (input.url !== undefined && input.url !== current.url) await assertSafeUrl(input.url)
  await assertOwnDepartments(actor.tenant.id, input.department_ids)

  // A filter change applies to events from now on: deliveries already made keep going.
  const changed = (['url', 'events', 'secret', 'department_ids', 'tags', 'statuses'] as const).filter((field) => input[field] !== undefined)
  const reenable = input.status === 'enabled' && current.status === 'disabled'
  const resume = input.status === 'enabled' && current.status === 'paused'
  if (input.status === 'paused' && current.status === 'disabled') {
    throw new ConflictError('webhook_disabled', 'This subscription was disabled by the service after delivery failures; re-enable it with status "enabled" before pausing it.')
  }
  const pause = input.status === 'paused' && current.status === 'enabled'
  if (changed.length === 0 && !reenable && !resume && !pause) return current

  const data: Prisma.WebhookSubscriptionUpdateManyMutationInput = {
    ...(input.url !== undefined && { url: input.url }),
    ...(input.events !== undefined && { events: input.events }),
    ...filterData(input),
    // A secret set outright replaces the current one at once and ends any rotation's overlap.
    ...(input.secret !== undefined && { secretEncrypted: encryptSecret(input.secret), previousSecretEncrypted: null, previousSecretExpiresAt: null }),
    ...(reenable && { status: 'enabled', disabledAt: null, disabledReason: null }),
    ...(resume && { status: 'enabled' }),
    ...(pause && { status: 'paused' }),
  }
  return tdb.$transaction(async (tx) => {
    // Guarded by the status read above, so a pause cannot land on a subscription the service just disabled.
    const [updated] = await tx.webhookSubscription.updateManyAndReturn({ where: { id: webhookId, ...((pause || resume) && { status: current.status }) }, data })
    if (!updated) {
      if (pause || resume) throw new ConflictError('concurrent_update', 'The subscription\'s status changed at the same moment; read it again and retry.')
      throw new NotFoundError('webhook', webhookId)
    }
    const audit = { tenantId: actor.tenant.id, actorId: actor.user?.id ?? null, targetType, targetId: webhookId }
    if (changed.length > 0) {
      await recordAudit(tx, {
        ...audit,
        action: 'webhook.updated',
        // Which fields changed, never the secret itself.
        metadata: { changed: [...changed], url: updated.url, events: updated.events, ...filterMetadata(updated) },
      })
    }
    if (reenable) {
      await recordAudit(tx, { ...audit, action: 'webhook.reenabled', metadata: { previous_reason: current.disabledReason } })
    }
    if (pause) await recordAudit(tx, { ...audit, action: 'webhook.paused', metadata: { url: updated.url } })
    if (resume) await recordAudit(tx, { ...audit, action: 'webhook.resumed', metadata: { url: updated.url } })
    return updated
  })
}

/** Deletes the subscription; its deliveries go with it, so pending retries stop at their next check. */
export async function deleteWebhook(actor: Actor, webhookId: string): Promise<void> {
  assertCan(actor, 'webhooks:manage')
  await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const existing = await tx.webhookSubscription.findUnique({ where: { id: webhookId } })
    if (!existing) throw new NotFoundError('webhook', webhookId)
    const { count } = await tx.webhookSubscription.deleteMany({ where: { id: webhookId } })
    if (count === 0) throw new NotFoundError('webhook', webhookId)
    await recordAudit(tx, {
      tenantId: actor.tenant.id,
      actorId: actor.user?.id ?? null,
      action: 'webhook.deleted',
      targetType,
      targetId: webhookId,
      metadata: { url: existing.url, events: existing.events },
    })
  })
}
