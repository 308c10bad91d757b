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

await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName}`)
process.env.DATABASE_URL = databaseUrl(name)

afterAll(async () => {
  const { db } = await import('../../lib/db/client.ts')
  await db.$disconnect()
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
})
