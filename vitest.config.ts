import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { defineConfig } from 'vitest/config'
// sharp's libvips, loaded here in the main thread, stays loaded while the test threads that use it
// come and go: unloaded with the last thread that had it, glibc can crash the process (sharp's
// documentation on worker threads).
import 'sharp'

// Names this run's template database; workers inherit it through the environment.
process.env.NEWSROOM_TEST_RUN ??= randomBytes(4).toString('hex')

const excluded = ['node_modules/**', 'e2e/**', '.next/**', 'tests/cluster/**', 'tests/backup/**']
const ownProcess = ['lib/time/local-datetime.test.ts']

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['lib/**/*.test.ts', 'inngest/**/*.test.ts', 'scripts/**/*.test.ts', 'prisma/**/*.test.ts', 'tools/**/*.test.ts', 'tests/**/*.test.ts', 'clients/**/*.test.ts'],
    // tests/cluster start the whole cluster: npm run test:cluster; tests/backup its own
    // PostgreSQL and pgBackRest: npm run test:backup.
    exclude: excluded,
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
    projects: [
      // Worker threads, not a process per file: each file still gets fresh modules, but a thread
      // starts and imports faster than a process (the whole suite: 705 s against 900 s here).
      { extends: true, test: { name: 'threads', pool: 'threads', exclude: [...excluded, ...ownProcess] } },
      // What needs a process of its own: the local zone (TZ) is the process's, and a thread's
      // process.env.TZ does not move it.
      { test: { name: 'own process', pool: 'forks', include: ownProcess, env: { NODE_ENV: 'test' } } },
    ],
  },
})
