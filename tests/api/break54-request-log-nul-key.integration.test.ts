import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { flushRequestLog } from '../../lib/request-log/record-api-request.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// break54: a query parameter named "%00" is logged with its name, a NUL, which JSON.stringify
// writes as "\u0000". PostgreSQL's json accepts it on insert, but ->> on any field of the entry
// refuses it ("unsupported Unicode escape sequence: \u0000 cannot be converted to text"), so one
// request from any key (read scope is enough) makes the newsroom's whole request log answer 500
// until the batch is pruned (30 days), as break53's lone surrogate did; readableEntries only
// rewrites '\ud' escapes.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})

afterAll(() => server.close())

describe('a request whose query parameter name is a NUL', () => {
  it('does not make the request log answer 500', async () => {
    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    const poisoned = await reader.get('/v1/articles?%00=1')
    expect(poisoned.status).toBeLessThan(500)
    await flushRequestLog()

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const listed = await admin.get('/v1/requests?limit=10')
    expect(listed.status).toBe(200)
    const filtered = await admin.get(`/v1/requests?limit=10&status=${poisoned.status}`)
    expect(filtered.status).toBe(200)
  })
})
