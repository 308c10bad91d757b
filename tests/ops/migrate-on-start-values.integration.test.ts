import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareSchemaOnStart, SchemaNotReadyError } from '../../scripts/schema-migrations.ts'
import { databaseUrl, testDatabaseUrl } from '../support/test-env.ts'

// Found by the issue-49 tester: an operator's environment file says MIGRATE_ON_START the way
// environment files say "off" (False, 0, no). An instance of a rolling deploy must then never
// change the schema; it migrated on start, as if the setting were absent.

const created: string[] = []
async function admin<T>(work: (client: pg.Client) => Promise<T>, url = testDatabaseUrl): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}
afterAll(async () => {
  for (const name of created) await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
})

describe('MIGRATE_ON_START spelled as an environment file spells "off"', () => {
  for (const value of ['False', '0', 'no']) {
    it(`MIGRATE_ON_START=${value}: the instance only checks the schema, and refuses an unmigrated database`, async () => {
      const name = `newsroom_mos_${randomBytes(5).toString('hex')}`
      await admin((client) => client.query(`CREATE DATABASE ${name}`))
      created.push(name)
      const url = databaseUrl(name)
      await expect(prepareSchemaOnStart(url, { env: { MIGRATE_ON_START: value } })).rejects.toBeInstanceOf(SchemaNotReadyError)
      const migrated = await admin((client) => client.query(`SELECT to_regclass('_prisma_migrations')::text AS found`), url)
      expect(migrated.rows[0].found).toBeNull()
    }, 120_000)
  }

  it('a value that is neither on nor off is refused, naming the setting', async () => {
    await expect(prepareSchemaOnStart(databaseUrl('unused'), { env: { MIGRATE_ON_START: 'fasle' } })).rejects.toThrow(/MIGRATE_ON_START/)
  })
})
