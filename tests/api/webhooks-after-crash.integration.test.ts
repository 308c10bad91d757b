import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { crashedClaim } from '../support/crashed-claim.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { rotateWebhookSecret } from '../../lib/webhooks/rotate-secret.ts'
import { decryptSecret } from '../../lib/security/secret-box.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// An instance that dies after a webhook change committed, before it answered: the client
// retries with the same Idempotency-Key, as the API tells it to, and must get the first
// attempt's answer, not a second change. Creating a subscription and rotating its secret ran in
// plain transactions that recorded nothing on the key: the retry made a second subscription (two
// deliveries of every event), or rotated again (ending the overlap of the secret the receiver
// still had, with a secret nobody was ever shown in between). Left as idempotency-after-crash.ts
// leaves a crashed key: claimed, the work committed under it, no answer.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>
let tokenId: string

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  client = apiClient(server.url, await newsroom.token(['webhooks:manage']))
  tokenId = (await db.apiToken.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id }, orderBy: { createdAt: 'desc' } })).id
})
afterAll(() => server.close())

const crashAfterCommit = async <T>(key: string, path: string, body: unknown, work: () => Promise<T>): Promise<T> => (await crashedClaim(tokenId, key, path, body, work))!

const subscriptionsAt = (url: string) => db.webhookSubscription.findMany({ where: { tenantId: newsroom.tenant.id, url } })

describe('webhook changes whose instance crashed after the commit, retried with the same Idempotency-Key', () => {
  it('a creation is answered with the subscription made the first time, and none is made twice', async () => {
    const body = { url: 'https://93.184.216.34/after-crash', events: ['article.published' as const], secret: 's'.repeat(24) }
    const first = await crashAfterCommit('hook-after-crash', '/v1/webhooks', body, () => createWebhook(newsroom.actor('admin'), body))

    const retry = await client.post('/v1/webhooks', body, { 'Idempotency-Key': 'hook-after-crash' })
    expect(retry.status, JSON.stringify(retry.body)).toBe(201)
    expect(retry.body.webhook_id).toBe(first.id)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(await subscriptionsAt(body.url)).toHaveLength(1)
  })

  it('a rotation is answered with the secret it made the first time, and the secret is not rotated twice', async () => {
    const body = { url: 'https://93.184.216.34/rotate-after-crash', events: ['article.published' as const], secret: 'r'.repeat(24) }
    const created = await client.post('/v1/webhooks', body)
    const path = `/v1/webhooks/${created.body.webhook_id}/rotate-secret`
    const rotated = await crashAfterCommit('rotate-after-crash', path, undefined, () => rotateWebhookSecret(newsroom.actor('admin'), created.body.webhook_id))

    const retry = await client.post(path, undefined, { 'Idempotency-Key': 'rotate-after-crash' })
    expect(retry.status, JSON.stringify(retry.body)).toBe(200)
    expect(retry.body.secret).toBe(rotated.secret)
    const [stored] = await subscriptionsAt(body.url)
    // Rotated once: the secret the client chose still signs beside the new one, for its overlap.
    expect(decryptSecret(stored!.secretEncrypted)).toBe(rotated.secret)
    expect(decryptSecret(stored!.previousSecretEncrypted!)).toBe(body.secret)
  })
})
