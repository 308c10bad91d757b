/** The event kinds of section 6 of the spec, grouped as the spec's table groups them. */
export const eventKindGroups = {
  Article: ['article.created', 'article.updated', 'article.published', 'article.unpublished', 'article.archived'],
  Media: ['media.uploaded', 'media.updated', 'media.deleted'],
  User: ['user.created', 'user.role_changed', 'user.deactivated'],
  Workflow: ['workflow.transitioned'],
  Billing: ['subscription.updated', 'subscription.cancelled'],
} as const

export type EventKind = (typeof eventKindGroups)[keyof typeof eventKindGroups][number]

/**
 * Kinds of the spec that nothing in this service emits yet (there is no billing): a subscription may list them, and will receive them once they exist.
 */
export const eventKindsNeverSent: ReadonlySet<EventKind> = new Set([...eventKindGroups.Billing])

export const eventKinds: readonly EventKind[] = Object.values(eventKindGroups).flat()

export function isEventKind(value: string): value is EventKind {
  return (eventKinds as readonly string[]).includes(value)
}

/**
 * Kinds the outbox also carries for the service's own durable jobs (scheduled publishing).
 * They travel the same committed-with-the-change path but are never sent to subscribers.
 */
export const internalEventKinds = ['article.publish_scheduled', 'content.purge_requested'] as const
export type InternalEventKind = (typeof internalEventKinds)[number]

export type OutboxEventKind = EventKind | InternalEventKind
