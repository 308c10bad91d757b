import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { createId } from '../../lib/ids.ts'
import { generateToken, hashToken, displayPrefix } from '../../lib/tokens/token-secret.ts'
import { apiClient } from '../support/api-client.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// The edit lease is claimed in one statement (INSERT … ON CONFLICT DO UPDATE … WHERE); the
// embedded store (PGlite, `npm run dev`) must keep its promise as PostgreSQL does: of racing
// claims exactly one wins, a take-over refuses the former holder, a lapsed lease blocks nothing.

let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let server: SpawnedApiServer
let client: pg.Client
const editors: { id: string; name: string; token: string }[] = []

beforeAll(async () => {
  embedded = await startMigratedEmbeddedDatabase()
  server = await spawnApiServer(embedded.url, { tenant: true, timeoutMs: 60_000 })
  client = new pg.Client({ connectionString: embedded.url })
  await client.connect()
  for (let i = 0; i < 4; i++) {
    const id = createId('usr')
    const token = generateToken()
    await client.query(`INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at) VALUES ($1, $2, $3, $4, 'editor', 'x', now())`, [id, server.tenant!.id, `editor${i}@embedded.example`, `Editor ${i}`])
    await client.query(`INSERT INTO api_tokens (id, tenant_id, name, prefix, token_hash, scopes, owner_id) VALUES ($1, $2, 'lease test', $3, $4, $5, $6)`, [
      createId('tok'),
      server.tenant!.id,
      displayPrefix(token),
      hashToken(token),
      ['articles:read', 'articles:write'],
      id,
    ])
    editors.push({ id, name: `Editor ${i}`, token })
  }
}, setupBackstopMs)
afterAll(async () => {
  await client?.end()
  await server?.stop()
  await embedded?.stop()
})

describe('edit leases on the embedded store', () => {
  it('lets one of racing claims win, refuses the former holder after a take-over, and lets a lapsed lease block nothing', async () => {
    const created = await apiClient(server.url, server.tenant!.token).post('/v1/articles', { headline: 'Embedded lease' })
    expect(created.status).toBe(201)
    const id = created.body.article_id as string

    const claims = await Promise.all(editors.map((editor) => apiClient(server.url, editor.token).post(`/v1/articles/${id}/lock`)))
    const winners = claims.filter((answer) => answer.status === 200)
    expect(winners).toHaveLength(1)
    const holder = winners[0]!.body.lock.holder_id as string
    for (const answer of claims.filter((a) => a.status !== 200)) expect(answer.body).toMatchObject({ status: 409, code: 'article_locked', holder_id: holder })

    const former = editors.find((editor) => editor.id === holder)!
    const taker = editors.find((editor) => editor.id !== holder)!
    const taken = await apiClient(server.url, taker.token).post(`/v1/articles/${id}/lock?take_over=true`)
    expect(taken.body).toMatchObject({ lock: { holder_id: taker.id }, took_over_from: { id: former.id, name: former.name } })

    const renewal = await apiClient(server.url, former.token).post(`/v1/articles/${id}/lock`)
    expect(renewal.body).toMatchObject({ code: 'article_locked', holder_name: taker.name })
    const save = await apiClient(server.url, former.token).patch(`/v1/articles/${id}`, { headline: 'Former holder' })
    expect(save.status).toBe(409)

    await client.query(`UPDATE article_leases SET expires_at = now() - interval '1 second' WHERE article_id = $1`, [id])
    const afterLapse = await apiClient(server.url, former.token).patch(`/v1/articles/${id}`, { headline: 'After the lapse' })
    expect(afterLapse.status).toBe(200)
    expect(afterLapse.body.headline).toBe('After the lapse')
  })
})
