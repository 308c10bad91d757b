// The lease's and the watch poll's timing, apart from the reads and writes (edit-lease.ts), so the
// portal's pages can use them.

/**
 * How long a lease holds without a heartbeat. The portal's editor renews it every
 * `leaseHeartbeatSeconds`, so a closed laptop or a crashed tab frees the article within this
 * time even when the release (a keepalive request on leaving) never arrives.
 */
export const leaseSeconds = 180
export const leaseHeartbeatSeconds = 30
/** How often a page showing an article polls for changes underneath (watch-article.ts; issue 29 asks for 5 s at most), when its poll is not held. */
export const watchIntervalSeconds = 3
/**
 * How long the server may hold a page's poll while nothing it shows changes (`Prefer: wait=…`,
 * portal-watch-route.ts): the page asks again at once when it is answered, so an open page costs
 * one request per change or per hold instead of one every few seconds. Below the proxies' idle
 * timeouts (60 s in the cluster's HAProxy).
 */
export const watchHoldSeconds = 25
/** How often the server checks the held polls' articles: a change shows within this (plus a round trip). */
export const watchCheckSeconds = 2
