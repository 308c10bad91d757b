import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { restartApp } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { appPid, pollFor, reportFault } from './fault-support.ts'

// An instance SIGKILLed in the middle of a bulk import sent with an Idempotency-Key: the client
// retries the same request, same key, through HAProxy (so another instance answers). It must
// get the import's answer — every item created once — and never wait out a stuck key.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`

let newsroom: TestTenant
let token: string

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
})

const killed = new Set<number>()

afterAll(async () => {
  // Both killed instances come back together (a restart costs tens of seconds here).
  await Promise.all([...killed].map((index) => restartApp(index)))
  await db.$disconnect()
}, 180_000)

const items = 300
function bulkBody(run: string) {
  // Bodies of some size, so the import takes long enough to be killed in the middle of it.
  const paragraph = `<p>${'Wire copy from the agency, paragraph after paragraph. '.repeat(40)}</p>`
  return { articles: Array.from({ length: items }, (_, i) => ({ headline: `${run} ${i}`, external_id: `${run}-${i}`, body: paragraph.repeat(3) })) }
}

async function importedOnce(run: string): Promise<void> {
  const articles = await db.article.findMany({ where: { tenantId: newsroom.tenant.id, externalId: { startsWith: `${run}-` } }, select: { id: true, version: true } })
  expect(articles).toHaveLength(items)
  expect(articles.every((article) => article.version === 1)).toBe(true)
  const ids = articles.map((article) => article.id)
  const [row] = await db.$queryRaw<{ created: number }[]>`
    SELECT count(*)::int AS created FROM events WHERE tenant_id = ${newsroom.tenant.id} AND kind = 'article.created' AND data->>'article_id' = ANY(${ids}::text[])`
  expect(row!.created).toBe(items)
}

/** Sends the import to instance `victim` directly, kills it once `moment` says so, and retries the same key through HAProxy. */
async function killAndRetry(run: string, victim: number, moment: (key: string) => Promise<boolean>) {
  const key = `bulk-${run}`
  const body = bulkBody(run)
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key }
  const first = fetch(`${instance(victim)}/v1/articles/bulk`, { method: 'POST', headers, body: JSON.stringify(body) }).then(
    (response) => response.status,
    () => 'connection lost' as const,
  )
  await pollFor(() => moment(key), `the moment to kill app-${victim + 1} (${run})`, 30_000, 5)
  process.kill(appPid(victim), 'SIGKILL')
  killed.add(victim)
  const firstOutcome = await first
  const retryStarted = performance.now()
  const retry = await apiClient(haproxy, token).post('/v1/articles/bulk', body, { 'Idempotency-Key': key })
  const retrySeconds = Math.round((performance.now() - retryStarted) / 100) / 10
  return { firstOutcome, retry, retrySeconds }
}

describe('an instance killed mid-bulk-import, the same Idempotency-Key retried', () => {
  it('killed once the key is claimed: the retry runs the import once and answers it', async () => {
    const run = `KILL-CLAIMED-${Date.now()}`
    const claimed = async (key: string) => (await db.idempotencyRecord.count({ where: { key } })) > 0
    const { firstOutcome, retry, retrySeconds } = await killAndRetry(run, 1, claimed)
    expect(firstOutcome).toBe('connection lost')
    expect(retry.status).toBe(200)
    expect(retry.body).toMatchObject({ created: items, updated: 0, failed: 0 })
    await importedOnce(run)
    reportFault('app instance SIGKILLed mid-bulk-import (key claimed, not committed)', { retry_answer_seconds: retrySeconds, requests_lost: 0, duplicated_items: 0 })
  })

  it('killed once the import has committed: the retry gets the committed answer, nothing imported twice', async () => {
    const run = `KILL-COMMITTED-${Date.now()}`
    const committed = async (key: string) => (await db.idempotencyRecord.count({ where: { key, committedAt: { not: null } } })) > 0
    const { retry, retrySeconds } = await killAndRetry(run, 2, committed)
    expect(retry.status).toBe(200)
    expect(retry.body).toMatchObject({ created: items, updated: 0, failed: 0 })
    await importedOnce(run)
    reportFault('app instance SIGKILLed mid-bulk-import (import committed)', { retry_answer_seconds: retrySeconds, requests_lost: 0, duplicated_items: 0 })
  })
})
