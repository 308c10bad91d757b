import { rmSync } from 'node:fs'
import pg from 'pg'
import { runPrisma } from '../../scripts/run-prisma.ts'
import { databaseUrl, templateDatabaseName, testDatabaseUrl } from './test-env.ts'
import { embeddedTemplateDir } from './embedded-database.ts'

/**
 * Builds one migrated template database; each test file then copies it (database-per-file.ts),
 * which takes a fraction of a second and lets files run in parallel without sharing rows.
 */
export default async function setup() {
  const admin = new pg.Client({ connectionString: testDatabaseUrl })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${templateDatabaseName} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${templateDatabaseName}`)
  } finally {
    await admin.end()
  }
  await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: databaseUrl(templateDatabaseName) })

  return async function teardown() {
    // The migrated embedded directory, when a file asked for one (embedded-database.ts).
    const embeddedTemplate = embeddedTemplateDir()
    if (embeddedTemplate) rmSync(embeddedTemplate, { recursive: true, force: true })
    const client = new pg.Client({ connectionString: testDatabaseUrl })
    await client.connect()
    try {
      await client.query(`DROP DATABASE IF EXISTS ${templateDatabaseName} WITH (FORCE)`)
    } finally {
      await client.end()
    }
  }
}
