// The lease's and the watch poll's timing, apart from the reads and writes (edit-lease.ts), so the
// portal's pages can use them.

/**
 * How long a lease holds without a heartbeat. The portal's editor renews it every
 * `leaseHeartbeatSeconds`, so a closed laptop or a crashed tab frees the article within this
 * time even when the release (a keepalive request on leaving) never arrives.
 */
export const leaseSeconds = 180
export const leaseHeartbeatSeconds = 30
/** How often a page showing an article polls for changes underneath (watch-article.ts; issue 29 asks for 5 s at most). */
export const watchIntervalSeconds = 3
