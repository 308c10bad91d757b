// @ts-check
import { securityHeaders } from './lib/security/response-headers.mjs'

/**
 * Hosts besides the one `next dev` was started on that may load its scripts and hot-reload
 * socket. Without them a portal opened at 127.0.0.1 (or from another machine) never hydrates,
 * and its forms fall back to native submits. NEWSROOM_DEV_ORIGINS adds LAN hosts, comma-separated.
 * Production ignores this setting.
 */
const allowedDevOrigins = [
  'localhost',
  '127.0.0.1',
  '[::1]',
  ...(process.env.NEWSROOM_DEV_ORIGINS ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean),
]

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages with native or WebAssembly parts run as plain Node modules, not bundled.
  serverExternalPackages: [
    '@prisma/client',
    '@prisma/adapter-pg',
    '@node-rs/argon2',
    '@node-rs/xxhash',
    '@electric-sql/pglite',
    '@electric-sql/pglite-socket',
    'pg',
    'ioredis',
    'nodemailer',
    // Registries and log streams must be the same module objects in the /v1 server and in Next.
    'prom-client',
    'pino',
  ],
  allowedDevOrigins,
  poweredByHeader: false,
  // forbidden() (next/navigation): Settings answers non-admins with a real HTTP 403.
  experimental: { authInterrupts: true },
  // For every response, API included; the portal's CSP (with its nonce) comes from proxy.ts.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: Object.entries(securityHeaders({ production: process.env.NODE_ENV === 'production', publicUrl: process.env.NEXTAUTH_URL })).map(
          ([key, value]) => ({ key, value }),
        ),
      },
    ]
  },
  typedRoutes: false,
}

export default nextConfig
