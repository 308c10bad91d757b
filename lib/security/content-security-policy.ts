/**
 * The portal's Content-Security-Policy: scripts only from this origin and with this
 * response's nonce (Next puts it on its own inline scripts), nothing framed, nothing
 * embedded. Styles may be inline (style attributes), which cannot run code.
 */
export function contentSecurityPolicy(nonce: string, options: { development: boolean; remoteImages?: boolean }): string {
  return [
    `default-src 'self'`,
    // React's development build evaluates code for its error overlay and fast refresh.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? ` 'unsafe-eval'` : ''}`,
    `style-src 'self' 'unsafe-inline'`,
    // The article preview shows the body's images as readers get them: a body's <img> may only be
    // https (body-url-rule.ts), and an image cannot run code. Every other page keeps to this origin.
    `img-src 'self' blob: data:${options.remoteImages ? ' https:' : ''}`,
    `font-src 'self'`,
    `connect-src 'self'${options.development ? ' ws: wss:' : ''}`,
    `object-src 'none'`,
    `base-uri 'self'`,
    `form-action 'self'`,
    `frame-ancestors 'none'`,
  ].join('; ')
}

export function createNonce(): string {
  const bytes = new Uint8Array(16)
  crypto.getRandomValues(bytes)
  return btoa(String.fromCharCode(...bytes))
}

/** Portal pages that show an article's body as readers will see it, images included. */
export function showsRemoteImages(path: string): boolean {
  return /^\/articles\/[^/]+\/preview\/?$/.test(path)
}
