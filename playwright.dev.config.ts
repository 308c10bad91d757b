import { defineConfig } from '@playwright/test'
import base from './playwright.config.ts'

// The service as `npm run dev` serves it (Next in development mode), opened at 127.0.0.1. Slow (Next
// compiles each page on first request), so it runs as its own pass of `npm run test:e2e`.
const port = Number(process.env.E2E_PORT ?? 3100) + 50
const baseURL = `http://127.0.0.1:${port}`

export default defineConfig({
  ...base,
  testIgnore: undefined,
  testMatch: 'dev-mode.spec.ts',
  timeout: 300_000,
  use: { ...base.use, baseURL },
  webServer: {
    command: 'npx tsx e2e/support/start-server.ts dev',
    url: `${baseURL}/signin`,
    reuseExistingServer: false,
    timeout: 300_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { E2E_PORT: String(port), INNGEST_DEV_SERVER: '0' },
  },
})
