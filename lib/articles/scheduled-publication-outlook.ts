import { eventQueueState, type EventQueueState } from '../ops/event-queue-health.ts'

/**
 * Whether a scheduled publication will go live by itself at its time, as far as this process
 * knows now: it runs only through the event queue (Inngest), so with none configured, or with
 * the last hand-off to it failed, nothing publishes the article when its time comes. The schedule
 * path (transitionArticle's outcome, the article page's schedule form) and the desk ask this one
 * function, so the editor is told when scheduling, not once the time has passed.
 */
export type ScheduledPublicationOutlook = { runs: true; queue: 'configured'; warning: null } | { runs: false; queue: Exclude<EventQueueState, 'configured'>; warning: string }

const warnings: Record<Exclude<EventQueueState, 'configured'>, string> = {
  not_configured:
    'No event queue (Inngest) is configured, so scheduled publications do not run: a scheduled article will not go live by itself at its time. Publish it yourself then, or ask an admin to set Inngest up.',
  failing:
    'The event queue (Inngest) is unreachable, so scheduled publications wait: a scheduled article will not go live by itself at its time unless the queue answers again before then. Publish it yourself if it cannot wait.',
}

export function scheduledPublicationOutlook(queue: EventQueueState = eventQueueState()): ScheduledPublicationOutlook {
  if (queue === 'configured') return { runs: true, queue, warning: null }
  return { runs: false, queue, warning: warnings[queue] }
}
