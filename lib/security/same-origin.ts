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
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host')
  try {
    return new URL(origin).host === host
  } catch {
    return false
  }
}
