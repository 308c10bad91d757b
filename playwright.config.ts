import path from 'node:path'
import { defineConfig } from '@playwright/test'
import { e2eBasePort, e2eBaseUrl } from './e2e/support/e2e-env.ts'
import { ensureLocalSecrets } from './lib/config/local-secrets.ts'

export { e2eBaseUrl }

// Journeys run in parallel by file, each worker against a production server and database of its
// own (e2e/support/e2e-env.ts): on one shared server they would meet in its per-account sign-in
// limits, the Daily Planet's SSO and webhook settings, and each other's list counts. Two, as the
// machine has two cores: the journeys mostly wait on the server and the browser in turn, so two
// pairs keep both cores busy. E2E_WORKERS=1 for a single spec starts only one server.
const workers = Math.max(1, Number(process.env.E2E_WORKERS ?? 2))
const ports = Array.from({ length: workers }, (_, index) => e2eBasePort + index)

// The servers start together, and each would generate the suite's shared secrets if the file did
// not exist yet, the later overwriting the earlier's (second-factor-choices.spec.ts starts a server
// of its own from the same file): made once here, before any starts.
ensureLocalSecrets({} as NodeJS.ProcessEnv, path.resolve('.data/e2e-secrets.json'))

export default defineConfig({
  testDir: 'e2e',
  // The dev-server check has its own config (playwright.dev.config.ts): it runs `next dev`.
  testIgnore: '**/dev-mode.spec.ts',
  outputDir: 'test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // A spec's journeys stay together, in order, in one worker; specs are spread over the workers.
  fullyParallel: false,
  workers,
  // No second chance: a journey that fails once is a bug to find (the last stopgap retry, for
  // e2e/two-factor.spec.ts:80, went with its cause: the router kept routes across a factor change).
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    // This worker's own server: the config is loaded again in every worker (e2e-env.ts).
    baseURL: e2eBaseUrl,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's Chromium; Playwright's own browser download is never used.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: ports.map((port) => ({
    command: 'npx tsx e2e/support/start-server.ts',
    url: `http://127.0.0.1:${port}/signin`,
    reuseExistingServer: false,
    timeout: 300_000,
    stdout: 'pipe' as const,
    stderr: 'pipe' as const,
    // Each server's uploads apart too, as its database is.
    env: { E2E_PORT: String(port), MEDIA_DIR: `.data/e2e-media-${port}` },
  })),
})
