import { Redis } from 'ioredis'
import { describe, expect, it, vi } from 'vitest'
import { getRedis } from '../../lib/redis.ts'
import { apiClient } from '../support/api-client.ts'
import { redisBackedServer } from '../support/redis-backed-server.ts'

// break59: a write committed while Redis is away (killed, restarted with its data as deploy.md's
// appendonly Redis is) is answered, but its generation advance is lost, and answers kept under
// the generation before it were served again once Redis was back: by the writer's own instance
// and, from Redis, by every other one, for up to 30 s.

const fixture = redisBackedServer()

describe('a write whose generation advance was lost with Redis (break59)', () => {
  it('is seen by the next read, and advances the generation once Redis is back', async () => {
    const { server, newsroom, elsewhere, generationKey } = fixture
    const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
    const created = await editor.post('/v1/articles', { headline: 'Before the outage' })
    expect(created.status, created.text).toBe(201)
    const path = `/v1/articles/${created.body.article_id}`
    for (let i = 0; i < 3; i++) expect((await editor.get(path)).body.headline).toBe('Before the outage')
    // The list's total is kept too (article-totals.ts), under the same generation.
    for (let i = 0; i < 3; i++) expect((await editor.get('/v1/articles?status=draft&limit=1')).body.total).toBe(1)
    const before = await elsewhere.get(generationKey())

    // Redis drops the connection as the advance is sent; the write has committed.
    const redis = getRedis() as Redis & { advanceGeneration: (key: string) => Promise<string> }
    const lost = vi.spyOn(redis, 'advanceGeneration').mockRejectedValue(new Error('Connection is closed.'))
    const patched = await editor.patch(path, { headline: 'Written during the outage' })
    expect(patched.status, patched.text).toBe(200)
    expect(lost).toHaveBeenCalled()
    const another = await editor.post('/v1/articles', { headline: 'Also during the outage' })
    expect(another.status, another.text).toBe(201)
    lost.mockRestore()
    expect(await elsewhere.get(generationKey())).toBe(before)
    expect((await editor.get('/v1/articles?status=draft&limit=1')).body.total).toBe(2)

    // Redis is back, with its data: the writer's instance does not serve what it kept before.
    expect((await editor.get(path)).body.headline).toBe('Written during the outage')
    // And on the next connection the advance is made, so no other instance does either.
    redis.emit('ready')
    await vi.waitFor(async () => expect(await elsewhere.get(generationKey())).not.toBe(before))
    expect((await editor.get(path)).body.headline).toBe('Written during the outage')
  })
})
