import { describe, expect, it } from 'vitest'
import { bearer, killedAfterCommitFixture, sendJson } from '../support/killed-after-commit.ts'

// break80 (helper-80): two instances share PostgreSQL and a Redis. An editor moves a draft to
// in-review with an Idempotency-Key through the first instance; the move commits (with its result
// recorded on the key, lib/events/idempotent-unit.ts) and the instance is SIGKILLed before it
// answers (here while Redis is slow for a moment, which holds the instance between its commit and
// its answer; any kill in that span does the same). The editor retries the same request, same key,
// on the second instance, as the API says to: it must get the move's answer (200, the article
// in-review, Idempotent-Replayed), as a retried bulk import does. It got 409 invalid_transition
// ("cannot move from in-review to in-review"): the transition checks the workflow on the article
// as it is now (transition-article.ts, assertMoveAllowed) before commitChange would have returned
// the recorded result, so the key the client holds can never tell it what happened.

const instances = killedAfterCommitFixture('break80-transition')
const headers = bearer
const send = sendJson

describe('a transition whose instance was killed after its commit, retried with its Idempotency-Key on another instance (break80)', () => {
  it('answers the retry with the committed move, not a refusal', async () => {
    const token = await instances.newsroom.token(['articles:read', 'articles:write'], 'editor')
    const body = JSON.stringify({ to_state: 'in-review' })
    const { prepared: created, key } = await instances.killed(
      async () => (await send(`${instances.second.url}/v1/articles`, { method: 'POST', headers: headers(token), body: JSON.stringify({ headline: 'Before the edit' }) })).body,
      (server, article, key) => send(`${server.url}/v1/articles/${article.article_id}/transitions`, { method: 'POST', headers: headers(token, { 'Idempotency-Key': key }), body }),
    )

    const retry = await send(`${instances.second.url}/v1/articles/${created.article_id}/transitions`, { method: 'POST', headers: headers(token, { 'Idempotency-Key': key }), body })
    expect(retry.status, JSON.stringify(retry.body)).toBe(200)
    expect(retry.body.status).toBe('in-review')
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    // Moved once: one in-review history entry's worth of version.
    expect(retry.body.version).toBe(created.version + 1)
  })

  it('answers the retry of a move pinned to the version it saw (If-Match, expected_state) with the move, not a 412', async () => {
    const token = await instances.newsroom.token(['articles:read', 'articles:write'], 'editor')
    const body = JSON.stringify({ to_state: 'in-review', expected_state: 'draft' })
    const pinned = (version: number) => headers(token, { 'If-Match': `"${version}"` })
    const { prepared: created, key } = await instances.killed(
      async () => (await send(`${instances.second.url}/v1/articles`, { method: 'POST', headers: headers(token), body: JSON.stringify({ headline: 'Pinned move' }) })).body,
      (server, article, key) => send(`${server.url}/v1/articles/${article.article_id}/transitions`, { method: 'POST', headers: { ...pinned(article.version), 'Idempotency-Key': key }, body }),
    )

    const path = `${instances.second.url}/v1/articles/${created.article_id}/transitions`
    const retry = await send(path, { method: 'POST', headers: { ...pinned(created.version), 'Idempotency-Key': key }, body })
    expect(retry.status, JSON.stringify(retry.body)).toBe(200)
    expect(retry.body.status).toBe('in-review')
    expect(retry.body.version).toBe(created.version + 1)
    // The answer kept on the key is the move's: asked again, the same.
    const again = await send(path, { method: 'POST', headers: { ...pinned(created.version), 'Idempotency-Key': key }, body })
    expect(again.status).toBe(200)
    expect(again.body.version).toBe(created.version + 1)
  })
})
