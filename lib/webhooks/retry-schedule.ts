/**
 * The retry schedule of the contract: the first attempt at once, then retries after these
 * waits. Each wait is a durable sleep whose id names the retry it precedes, so a run's
 * history reads as the schedule.
 */
export const retrySchedule = [
  { id: 'wait-before-retry-1', duration: '1m', ms: 60_000 },
  { id: 'wait-before-retry-2', duration: '5m', ms: 5 * 60_000 },
  { id: 'wait-before-retry-3', duration: '30m', ms: 30 * 60_000 },
  { id: 'wait-before-retry-4', duration: '2h', ms: 2 * 3_600_000 },
  { id: 'wait-before-retry-5', duration: '12h', ms: 12 * 3_600_000 },
  { id: 'wait-before-retry-6', duration: '24h', ms: 24 * 3_600_000 },
] as const

/** First attempt plus six retries: when the seventh attempt fails, the subscription is disabled. */
export const maxDeliveryAttempts = retrySchedule.length + 1
