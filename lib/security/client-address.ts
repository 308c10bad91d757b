import { hotSetting } from '../config/hot-setting.ts'

/**
 * The client's address, for the per-address limits (unauthenticated /v1 requests, sign-in).
 *
 * The production server appends the address of the peer it accepted each connection from to
 * X-Forwarded-For (lib/server/node-http.ts), so the last entry is always true. Entries to its
 * left were sent by whoever connected: a load balancer's are true, a client's are anything it
 * likes. TRUSTED_PROXY_HOPS says how many proxies in front of the app append to the header
 * (0, the default, when clients connect directly); the address is taken that many entries from
 * the right, and a client cannot choose it by sending the header itself.
 */
export function clientAddress(forwardedFor: string | string[] | null | undefined): string {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')
  // One hop (a client that connects directly, the usual case): it is the answer whatever
  // TRUSTED_PROXY_HOPS says, found without splitting or reading the environment (every request
  // the request log records asks: 0.7 us each the long way).
  if (!header.includes(',')) return header.trim() || 'unknown'
  const hops = header.split(',').map((hop) => hop.trim()).filter(Boolean)
  const trusted = Number(hotSetting('TRUSTED_PROXY_HOPS') ?? 0)
  const index = hops.length - 1 - (Number.isSafeInteger(trusted) && trusted > 0 ? trusted : 0)
  return hops[Math.max(0, index)] ?? 'unknown'
}
