import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { defineConfig } from 'vitest/config'

// Names this run's template database; workers inherit it through the environment.
process.env.NEWSROOM_TEST_RUN ??= randomBytes(4).toString('hex')

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['lib/**/*.test.ts', 'inngest/**/*.test.ts', 'scripts/**/*.test.ts', 'prisma/**/*.test.ts', 'tools/**/*.test.ts', 'tests/**/*.test.ts', 'clients/**/*.test.ts'],
    // tests/cluster start the whole cluster: npm run test:cluster; tests/backup its own
    // PostgreSQL and pgBackRest: npm run test:backup.
    exclude: ['node_modules/**', 'e2e/**', '.next/**', 'tests/cluster/**', 'tests/backup/**'],
    globalSetup: ['tests/support/global-setup.ts'],
    // Every process that writes registers the outbox's queue, as scripts/dev.ts and instrumentation.ts do.
    setupFiles: ['tests/support/database-per-file.ts', 'inngest/outbox-queue.ts'],
    // A backstop against a hang, not a speed check: a test that starts server processes (tsx,
    // Prisma) took 30 s on a machine at load 16, and CI's machine has such phases. Tests that
    // need longer (seeding, archives) say so themselves.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Two cores: two workers keep the machine responsive for the database and Redis.
    maxWorkers: 3,
    env: { NODE_ENV: 'test', NEXT_TELEMETRY_DISABLED: '1' },
  },
})
