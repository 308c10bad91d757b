/**
 * How long the webhook deliveries log keeps a finished delivery, with its attempts (each
 * attempt's request headers and body, and the response's status, headers and first 4 KB of
 * body): DELIVERY_LOG_RETENTION_DAYS, 30 by default like the request log. The nightly prune
 * (prune-delivery-log.ts) deletes by it, and the portal's deliveries page tells admins the same
 * number, so the two never disagree.
 */
export const defaultDeliveryLogRetentionDays = 30

export function deliveryLogRetentionDays(): number {
  const configured = Number(process.env.DELIVERY_LOG_RETENTION_DAYS ?? defaultDeliveryLogRetentionDays)
  // A value that is no number of days (empty, "thirty", 0 or less) would prune by an invalid
  // cutoff, or everything at once: the default stands instead.
  return Number.isFinite(configured) && configured > 0 ? configured : defaultDeliveryLogRetentionDays
}
