import { NextResponse, type NextRequest } from 'next/server'
import { secondFactorOverdue, secondFactorSetupPath } from './lib/auth/second-factor-gate.ts'
import { contentSecurityPolicy, createNonce, showsRemoteImages } from './lib/security/content-security-policy.ts'

/** Pages outside the portal: reachable whatever the member's second factor. */
const outsidePortal = /^\/(signin|docs|content)(\/|$)/

/**
 * Portal pages get a fresh CSP nonce on every request; Next reads it from the request's
 * Content-Security-Policy header and stamps it on the scripts it renders.
 */
export async function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname
  // Past the newsroom's two-factor grace, every portal page but Security sends the member there.
  // Here, before rendering: the portal layout does not render again on a client navigation, and a
  // redirect thrown while it renders leaves the browser a blank page (second-factor-gate.ts).
  if (path !== secondFactorSetupPath && !outsidePortal.test(path) && (await secondFactorOverdue(request))) {
    // A client navigation (the router's RSC request) gets no flight data, so the router loads the
    // page in full and the redirect below happens there. A redirect answered to the router was
    // remembered as where the link leads, past the factor being set up: Articles kept opening
    // Security (e2e/two-factor.spec.ts, two-factor-gate-tabs.spec.ts), and router.refresh() does
    // not forget routes. A full load keeps nothing.
    if (routerRequest(request)) return new NextResponse(null, { status: 204, headers: { 'Cache-Control': 'no-store' } })
    return NextResponse.redirect(new URL(secondFactorSetupPath, request.url))
  }
  const nonce = createNonce()
  const policy = contentSecurityPolicy(nonce, { development: process.env.NODE_ENV === 'development', remoteImages: showsRemoteImages(path) })
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('x-nonce', nonce)
  requestHeaders.set('Content-Security-Policy', policy)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  response.headers.set('Content-Security-Policy', policy)
  return response
}

/**
 * Whether this is the router's own request (a client navigation's fetch) rather than a page load.
 * Not by its `rsc` header: Next strips the router's headers (rsc, its state tree, prefetch) from
 * the request it hands the proxy (FLIGHT_HEADERS in next/dist/server/web/adapter.js), so a check
 * on it never held and the gate answered the router with a redirect it remembered (the journey
 * in e2e/two-factor-gate-tabs.spec.ts). What is left: the browser says a fetch is not for a
 * document (Sec-Fetch-Dest: empty), and the router names the page it navigates from (Next-Url).
 * A client that sends neither (curl, an old browser) gets the redirect, as a page load does.
 */
function routerRequest(request: NextRequest): boolean {
  return request.headers.get('sec-fetch-dest') === 'empty' || request.headers.has('next-url')
}

export const config = {
  // Pages only: the JSON API, health probes, Next's assets and auth endpoints need no script policy, and
  // skipping them keeps the proxy off the API's hot path.
  // Prefetches too: the gate must see every page request, and a request is a prefetch by a
  // header the client chooses. Skipping them (as Next's CSP example does) let a member past the
  // grace read any page by sending `Purpose: prefetch` (a draft's preview, e2e/break66-gate.spec.ts);
  // the router's own prefetches of gated pages get the 204 above, so it keeps nothing of them.
  matcher: ['/((?!v1/|api/|healthz|readyz|metrics|_next/static|_next/image|favicon.ico|icon.svg).*)'],
}
