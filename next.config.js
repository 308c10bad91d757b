// @ts-check

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages with native or WebAssembly parts run as plain Node modules, not bundled.
  serverExternalPackages: [
    '@prisma/client',
    '@prisma/adapter-pg',
    '@node-rs/argon2',
    '@electric-sql/pglite',
    '@electric-sql/pglite-socket',
    'pg',
    'ioredis',
    'nodemailer',
  ],
  poweredByHeader: false,
  // For every response, API included; the portal's CSP (with its nonce) comes from proxy.ts.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
          ...(process.env.NODE_ENV === 'production' && (process.env.NEXTAUTH_URL ?? '').startsWith('https://')
            ? [{ key: 'Strict-Transport-Security', value: 'max-age=31536000; includeSubDomains' }]
            : []),
        ],
      },
    ]
  },
  typedRoutes: false,
}

export default nextConfig
