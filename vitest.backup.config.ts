import path from 'node:path'
import { defineConfig } from 'vitest/config'

// `npm run test:backup`: the backup restored to a point in time (tests/backup), its own CI step.
// Self-contained: its own PostgreSQL and pgBackRest repository (scripts/backup.ts), no shared database.
export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['tests/backup/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    env: { NODE_ENV: 'test', NEXT_TELEMETRY_DISABLED: '1' },
  },
})
