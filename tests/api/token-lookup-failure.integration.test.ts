import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer } from '../support/spawn-api-server.ts'

/**
 * A failed token lookup says nothing about the key: the answer is 503 + Retry-After (retry),
 * never 401 (which tells an integration to throw the key away). Held on both stores.
 */
async function expectLookupFailureIsRetryable(databaseUrl: string) {
  // No token cache, so every request asks the database.
  const server = await spawnApiServer(databaseUrl, { tenant: true, env: { TOKEN_CACHE_TTL_MS: '0' }, timeoutMs: 60_000 })
  const sql = new pg.Client({ connectionString: databaseUrl })
  await sql.connect()
  try {
    const client = apiClient(server.url, server.tenant!.token)
    expect((await client.get('/v1/articles')).status).toBe(200)

    await sql.query('ALTER TABLE api_tokens RENAME TO api_tokens_out_of_reach')
    const failed = await client.get('/v1/articles')
    expect(failed.status).toBe(503)
    expect(failed.headers.get('content-type')).toBe('application/problem+json')
    expect(failed.headers.get('retry-after')).toBe('5')
    expect(failed.body).toMatchObject({ status: 503, code: 'service_unavailable', request_id: failed.headers.get('x-request-id') })
    expect(failed.text).not.toMatch(/api_tokens|relation|prisma/i)

    await sql.query('ALTER TABLE api_tokens_out_of_reach RENAME TO api_tokens')
    expect((await client.get('/v1/articles')).status).toBe(200)
  } finally {
    await sql.end()
    await server.stop()
  }
}

describe('a database error while authenticating', () => {
  let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>> | undefined
  afterAll(() => embedded?.stop())

  it('is a 503 with Retry-After on PostgreSQL', async () => {
    await expectLookupFailureIsRetryable(process.env.DATABASE_URL!)
  }, 120_000)

  it('is a 503 with Retry-After on the embedded database', async () => {
    embedded = await startMigratedEmbeddedDatabase()
    await expectLookupFailureIsRetryable(embedded.url)
  }, 120_000)
})
