import { describe, expect, it } from 'vitest'
import { bearer, killedAfterCommitFixture, sendJson } from '../support/killed-after-commit.ts'

// break80 (helper-80): two instances share PostgreSQL and a Redis. A wire feed's bulk import,
// sent with an Idempotency-Key to the first instance, updates an article the second instance has
// cached; the import commits and the instance is SIGKILLed before the newsroom's article
// generation advanced (Redis was slow for a moment: the advance was still on its way). The feed
// retries the same request, same key, on the second instance, which recovers the committed result
// and acknowledges it (200, Idempotent-Replayed, updated: 1). A read there right after that
// acknowledgement must show the update (docs/integrators.md: every committed change advances the
// generation before the writer gets its answer, so no instance serves an answer a write has
// outdated). It showed the article as it was before, for up to the cache's 30 s: a recovered
// change returns its recorded result without advancing the generations (lib/events/commit-change.ts).

const instances = killedAfterCommitFixture('break80-import')
const headers = bearer
const send = sendJson

describe('a bulk import whose instance was killed after its commit, retried with its Idempotency-Key on another instance (break80)', () => {
  it('is shown by that instance once the retry acknowledges it', async () => {
    const token = await instances.newsroom.token(['articles:read', 'articles:write'], 'editor')
    const importOf = (externalId: string, headline: string) => JSON.stringify({ articles: [{ external_id: externalId, headline, lede: 'Wire lede', body: '<p>Wire copy.</p>' }] })
    const { prepared: story, key } = await instances.killed(
      // A story the second instance has read a few times, so that it keeps its answer (from the second ask).
      async () => {
        const externalId = `break80-wire-${Date.now()}`
        const created = await send(`${instances.second.url}/v1/articles/bulk`, { method: 'POST', headers: headers(token), body: importOf(externalId, 'Wire story, first take') })
        expect(created.status).toBe(200)
        expect(created.body).toMatchObject({ created: 1 })
        const path = `/v1/articles/${created.body.results[0].article_id}`
        for (let i = 0; i < 4; i++) expect((await send(`${instances.second.url}${path}`, { headers: headers(token) })).body.headline).toBe('Wire story, first take')
        return { externalId, path }
      },
      (server, { externalId }, key) => send(`${server.url}/v1/articles/bulk`, { method: 'POST', headers: headers(token, { 'Idempotency-Key': key }), body: importOf(externalId, 'Wire story, corrected') }),
    )

    const retry = await send(`${instances.second.url}/v1/articles/bulk`, { method: 'POST', headers: headers(token, { 'Idempotency-Key': key }), body: importOf(story.externalId, 'Wire story, corrected') })
    expect(retry.status, JSON.stringify(retry.body)).toBe(200)
    expect(retry.body).toMatchObject({ created: 0, updated: 1, failed: 0 })
    expect(retry.headers.get('idempotent-replayed')).toBe('true')

    const read = await send(`${instances.second.url}${story.path}`, { headers: headers(token) })
    expect(read.body.headline).toBe('Wire story, corrected')
  })
})
