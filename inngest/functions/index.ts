import { deliverWebhook } from './deliver-webhook.ts'
import { deliverySweeper } from './delivery-sweeper.ts'
import { fanOutEvent } from './fan-out-event.ts'
import { outboxSweeper } from './outbox-sweeper.ts'
import { publishScheduledArticle } from './publish-scheduled-article.ts'
import { pruneDeliveryLogFunction } from './prune-delivery-log.ts'
import { pruneEventsFunction } from './prune-events.ts'
import { prunePortalSessionsFunction } from './prune-portal-sessions.ts'
import { pruneRequestLogFunction } from './prune-request-log.ts'
import { withholdExpiredMediaFunction } from './withhold-expired-media.ts'
import { sweepOrphanMediaFunction } from './sweep-orphan-media.ts'

/** Every function the app serves at /api/inngest. */
export const functions = [fanOutEvent, deliverWebhook, publishScheduledArticle, outboxSweeper, deliverySweeper, pruneRequestLogFunction, pruneDeliveryLogFunction, pruneEventsFunction, prunePortalSessionsFunction, withholdExpiredMediaFunction, sweepOrphanMediaFunction]
