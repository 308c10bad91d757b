/** The header the portal's own fetches carry; a form on another site cannot set it. */
export const portalRequestHeader = 'x-newsroom-portal'

/**
 * Whether a state-changing portal request comes from the portal itself: it must carry the
 * portal header (a cross-site form or <img> cannot), and an Origin, when the browser sends
 * one, must be ours. Together with SameSite cookies this stops CSRF.
 */
export function isPortalRequest(request: { headers: { get(name: string): string | null } }): boolean {
  if (request.headers.get(portalRequestHeader) !== '1') return false
  const origin = request.headers.get('origin')
  if (!origin) return true
  // X-Forwarded-Host is a proxy's word for the host the browser asked for; with no proxy in front
  // (TRUSTED_PROXY_HOPS=0, the default) it is whatever the client sent, so only Host counts.
  const host = (trustsProxies() ? request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : null) || request.headers.get('host')
  try {
    return new URL(origin).host === host
  } catch {
    return false
  }
}

/** Whether a proxy in front of the app sets the forwarding headers (see client-address.ts). */
function trustsProxies(): boolean {
  const hops = Number(process.env.TRUSTED_PROXY_HOPS ?? 0)
  return Number.isSafeInteger(hops) && hops > 0
}
