/**
 * Starts the production build for the e2e suite: a fresh seeded database on the test
 * PostgreSQL server, then the production server as `npm start` runs it (dist/start.mjs; run
 * `npm run build` first, as npm run test:e2e does). With the argument `dev` it runs
 * scripts/dev.ts instead (development mode, as npm run dev).
 */
import { spawn } from 'node:child_process'
import pg from 'pg'
import { e2eAdminDatabaseUrl, e2eDatabaseName, e2eDatabaseUrl } from './e2e-env.ts'
import { startCommand } from '../../scripts/start-command.ts'
import { ensureLocalSecrets } from '../../lib/config/local-secrets.ts'

const admin = new pg.Client({ connectionString: e2eAdminDatabaseUrl() })
await admin.connect()
await admin.query(`DROP DATABASE IF EXISTS ${e2eDatabaseName} WITH (FORCE)`)
await admin.query(`CREATE DATABASE ${e2eDatabaseName}`)
// The journeys' database need not survive a crash of the shared server: commits without
// waiting for their WAL flush, as the vitest databases do (tests/support/database-per-file.ts).
await admin.query(`ALTER DATABASE ${e2eDatabaseName} SET synchronous_commit = off`)
await admin.end()

const mode = process.argv[2] === 'dev' ? 'dev' : 'start'
const [command, args] = mode === 'dev' ? [process.execPath, ['--import', 'tsx', 'scripts/dev.ts']] : startCommand()
// Production with a DATABASE_URL refuses to start without its shared secrets (as an operator
// would set them); the suite keeps its own, generated once.
process.env.LOCAL_SECRETS_FILE = '.data/e2e-secrets.json'
const secrets = ensureLocalSecrets({} as NodeJS.ProcessEnv)
const server = spawn(command, args, {
  stdio: 'inherit',
  env: {
    ...secrets,
    ...process.env,
    DATABASE_URL: e2eDatabaseUrl(),
    SEED: 'true',
    PORT: process.env.E2E_PORT ?? '3100',
    NODE_ENV: mode === 'dev' ? 'development' : 'production',
    LOCAL_SECRETS_FILE: '.data/e2e-secrets.json',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // Not the default (30), so the webhook journey sees the portal state the configured period.
    DELIVERY_LOG_RETENTION_DAYS: '45',
    // One JSON line per API request would bury Playwright's own output.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  },
})
const stop = () => server.kill('SIGTERM')
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
server.on('exit', (code) => process.exit(code ?? 0))
