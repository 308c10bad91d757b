import { NextResponse, type NextRequest } from 'next/server'
import { contentSecurityPolicy, createNonce } from './lib/security/content-security-policy.ts'

const development = () => process.env.NODE_ENV === 'development'

/**
 * Request headers as the app may trust them. The production server sets X-Forwarded-For from
 * the connection itself (lib/server/node-http.ts), but `next dev` passes on whatever a client
 * sends, which would let it pick its own address for the per-address limits; under `next dev`
 * the header is dropped, so every client counts as one unknown address.
 */
function trustedHeaders(request: NextRequest): Headers {
  const headers = new Headers(request.headers)
  if (development()) headers.delete('x-forwarded-for')
  return headers
}

/**
 * Portal pages get a fresh CSP nonce on every request; Next reads it from the request's
 * Content-Security-Policy header and stamps it on the scripts it renders. The API and auth
 * routes only get their headers checked (in production /v1 never reaches Next at all).
 */
export function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname
  if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/api/')) {
    return development() ? NextResponse.next({ request: { headers: trustedHeaders(request) } }) : NextResponse.next()
  }
  const nonce = createNonce()
  const policy = contentSecurityPolicy(nonce, { development: development() })
  const requestHeaders = trustedHeaders(request)
  requestHeaders.set('x-nonce', nonce)
  requestHeaders.set('Content-Security-Policy', policy)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  response.headers.set('Content-Security-Policy', policy)
  return response
}

export const config = {
  matcher: [
    // Pages: health probes, metrics and Next's assets need no script policy.
    {
      source: '/((?!v1/|api/|healthz|readyz|metrics|_next/static|_next/image|favicon.ico).*)',
      missing: [{ type: 'header', key: 'next-router-prefetch' }, { type: 'header', key: 'purpose', value: 'prefetch' }],
    },
    '/v1/:path*',
    '/api/:path*',
  ],
}
