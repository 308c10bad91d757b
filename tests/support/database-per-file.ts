import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll } from 'vitest'
import { databaseUrl, templateDatabaseName, testDatabaseUrl } from './test-env.ts'

// Runs before each test file, before any module reads DATABASE_URL: the file gets its own
// copy of the migrated template database, dropped when the file is done.
const name = `newsroom_test_${randomBytes(6).toString('hex')}`

async function adminQuery(sql: string) {
  const admin = new pg.Client({ connectionString: testDatabaseUrl })
  await admin.connect()
  try {
    await admin.query(sql)
  } finally {
    await admin.end()
  }
}

// PostgreSQL refuses to copy a template while another session is connected to it, which
// happens for a moment when files start together; wait and try again.
for (let attempt = 1; ; attempt++) {
  try {
    await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName}`)
    break
  } catch (error) {
    if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
  }
}
// Commits here need not survive a crash of the shared server (tests that crash PostgreSQL run
// their own, tests/support/private-postgres.ts): without waiting for each commit's WAL flush, a
// commit costs ~0.7 ms instead of ~3.5 ms on this machine's disk (pgbench: 283 vs 1,470 tps).
await adminQuery(`ALTER DATABASE ${name} SET synchronous_commit = off`)
process.env.DATABASE_URL = databaseUrl(name)

afterAll(async () => {
  const { db } = await import('../../lib/db/client.ts')
  await db.$disconnect()
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
})
