import { NextResponse, type NextRequest } from 'next/server'
import { contentSecurityPolicy, createNonce } from './lib/security/content-security-policy.ts'

/**
 * Portal pages get a fresh CSP nonce on every request; Next reads it from the request's
 * Content-Security-Policy header and stamps it on the scripts it renders.
 */
export function proxy(request: NextRequest) {
  const nonce = createNonce()
  const policy = contentSecurityPolicy(nonce, { development: process.env.NODE_ENV === 'development' })
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('x-nonce', nonce)
  requestHeaders.set('Content-Security-Policy', policy)
  // The portal layout reads it to let only Security through while a required second factor is overdue.
  requestHeaders.set('x-pathname', request.nextUrl.pathname)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  response.headers.set('Content-Security-Policy', policy)
  return response
}

export const config = {
  // Pages only: the JSON API, health probes, Next's assets and auth endpoints need no script policy, and
  // skipping them keeps the proxy off the API's hot path.
  matcher: [
    {
      source: '/((?!v1/|api/|healthz|readyz|metrics|_next/static|_next/image|favicon.ico).*)',
      missing: [{ type: 'header', key: 'next-router-prefetch' }, { type: 'header', key: 'purpose', value: 'prefetch' }],
    },
  ],
}
