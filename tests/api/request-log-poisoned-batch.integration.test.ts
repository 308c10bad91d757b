import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { flushRequestLog } from '../../lib/request-log/record-api-request.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// A batch stored before query keys were cut between whole characters can hold half an emoji
// as a lone "\ud83d" escape (break53). Such batches stay until the log is pruned (30 days), so
// the listing must read them rather than answer 500 for the newsroom's whole log.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})

afterAll(() => server.close())

describe('a request log batch stored with a lone surrogate', () => {
  it('is listed, the half character read as U+FFFD', async () => {
    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    // An unknown parameter is refused (422), and logged with its name as any request is.
    expect((await reader.get('/v1/articles?poisonedkey=1')).status).toBe(422)
    await flushRequestLog()
    // As the build before the fix stored it: the key's last character half an emoji.
    const changed = await db.$executeRaw`UPDATE api_request_batches SET entries = replace(entries::text, 'poisonedkey', 'poisonedkey\\ud83d')::json WHERE tenant_id = ${newsroom.tenant.id}`
    expect(changed).toBe(1)

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const listed = await admin.get('/v1/requests?limit=10')
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).toContain('poisonedkey\ufffd')
    const filtered = await admin.get('/v1/requests?limit=10&status=422')
    expect(filtered.status).toBe(200)
    expect(JSON.stringify(filtered.body)).toContain('poisonedkey\ufffd')
  })
})
