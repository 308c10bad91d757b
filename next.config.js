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
  typedRoutes: false,
}

export default nextConfig
