import { articleSchema } from '../articles/article-schemas.ts'
import { exampleMediaRecord } from '../media/media-example.ts'
import { ValidationError } from '../errors.ts'
import { eventKindsNeverSent, isEventKind, type EventKind } from '../events/event-kinds.ts'

/**
 * The data of a sample event of a real kind, for "Send test event" with a chosen kind: the shape
 * the kind really carries (an article event carries the article record, as the events API
 * documents), filled with the reference's example values, never this newsroom's data. Every
 * sample says `"test": true`, so a receiver can tell it from a real change and act on nothing.
 */
export function sampleEventData(kind: EventKind, actorId: string | null): Record<string, unknown> {
  const article = articleSchema.parse(articleSchema.meta()?.example)
  const test = { test: true, message: `A sample ${kind} event sent from the newsroom service to test the receiver. It describes no real change.` }
  switch (kind) {
    case 'article.created':
      return { ...article, status: 'draft', published_at: null, url: null, slug: null, previous_urls: [], version: 1, ...test }
    case 'article.updated':
      return { ...article, ...test }
    case 'article.published':
      return { ...article, ...test }
    case 'article.unpublished':
      return { ...article, status: 'draft', url: null, ...test }
    case 'article.archived':
      return { ...article, status: 'archived', url: null, ...test }
    case 'workflow.transitioned':
      return { article_id: article.article_id, from_state: 'approved', to_state: 'published', actor_id: actorId, ...test }
    case 'user.created':
      return { user_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4f', email: 'new.reporter@example.com', name: 'New Reporter', role: 'writer', created_by: actorId, ...test }
    case 'user.role_changed':
      return { user_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4f', email: 'new.reporter@example.com', previous_role: 'writer', role: 'editor', changed_by: actorId, ...test }
    case 'user.deactivated':
      return { user_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4f', email: 'new.reporter@example.com', deactivated_at: '2026-11-20T09:30:00.000Z', deactivated_by: actorId, ...test }
    case 'media.uploaded':
    case 'media.updated':
    case 'media.deleted':
      return { ...exampleMediaRecord, ...test }
    default:
      return test
  }
}

/**
 * The kind a test may sample: one the subscription listens to and the service sends. A kind
 * nothing emits yet (media, billing) has no shape to show, and says so.
 */
export function assertSampleKind(kind: string, subscribed: readonly string[]): EventKind {
  const refuse = (message: string) => new ValidationError([{ field: 'event', message }])
  if (!isEventKind(kind)) throw refuse(`${kind} is not an event kind.`)
  if (!subscribed.includes(kind)) throw refuse(`This subscription does not listen to ${kind}; choose one of: ${subscribed.join(', ')}.`)
  if (eventKindsNeverSent.has(kind)) throw refuse(`Nothing in this service sends ${kind} yet, so there is no sample of it; send webhook.test instead.`)
  return kind
}

