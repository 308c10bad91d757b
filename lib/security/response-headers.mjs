// Plain JavaScript so next.config.js can load it too: Next applies these to what it serves,
// lib/server/node-http.ts to the /v1 responses the app server answers itself.

/**
 * The security headers on every response, API and portal alike; HSTS only when the service
 * is reached over HTTPS. The portal's CSP, with its nonce, comes from proxy.ts.
 * @param {{ production: boolean, publicUrl: string | undefined }} options
 * @returns {Record<string, string>}
 */
export function securityHeaders({ production, publicUrl }) {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'X-Frame-Options': 'DENY',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
    ...(production && (publicUrl ?? '').startsWith('https://') ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  }
}
