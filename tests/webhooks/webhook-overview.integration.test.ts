import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { NotFoundError } from '../../lib/errors.ts'
import { createId } from '../../lib/ids.ts'
import { webhookOverview } from '../../lib/webhooks/webhook-overview.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The figures at the top of a webhook's page: attempts and successes of the last 24 hours,
// and the deliveries still waiting (those held by a pause among them).

let newsroom: TestTenant
let other: TestTenant

async function subscription(tenant: TestTenant) {
  const id = createId('whk')
  await db.webhookSubscription.create({
    data: { id, tenantId: tenant.tenant.id, url: 'https://hooks.example.com/overview', events: ['article.published'], secretEncrypted: 'unused-in-this-test', ownerId: tenant.users.admin.id },
  })
  return id
}

async function delivery(tenant: TestTenant, subscriptionId: string, status: 'pending' | 'succeeded' | 'failed', attempts: { hoursAgo: number; status: number | null }[], held = false) {
  const eventId = createId('evt')
  await db.event.create({ data: { id: eventId, tenantId: tenant.tenant.id, kind: 'article.published', occurredAt: new Date(), data: {}, sentToQueueAt: new Date() } })
  const id = createId('dlv')
  await db.delivery.create({ data: { id, tenantId: tenant.tenant.id, eventId, subscriptionId, status, heldAt: held ? new Date() : null } })
  for (const [index, attempt] of attempts.entries()) {
    await db.deliveryAttempt.create({
      data: { id: createId('att'), deliveryId: id, attempt: index + 1, at: new Date(Date.now() - attempt.hoursAgo * 3_600_000), responseStatus: attempt.status, durationMs: 10 },
    })
  }
}

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
})

describe('webhookOverview', () => {
  it('counts the attempts of the last 24 hours, the 2xx among them, and what waits', async () => {
    const hook = await subscription(newsroom)
    expect(await webhookOverview(newsroom.actor('admin'), hook)).toEqual({ attempts24h: 0, succeeded24h: 0, pending: 0, held: 0 })

    await delivery(newsroom, hook, 'succeeded', [{ hoursAgo: 30, status: 500 }, { hoursAgo: 2, status: 204 }])
    await delivery(newsroom, hook, 'failed', [{ hoursAgo: 1, status: 500 }, { hoursAgo: 0.5, status: null }])
    await delivery(newsroom, hook, 'pending', [{ hoursAgo: 0.1, status: 503 }])
    await delivery(newsroom, hook, 'pending', [], true)
    // Another subscription's deliveries are not this one's.
    await delivery(newsroom, await subscription(newsroom), 'pending', [{ hoursAgo: 1, status: 200 }])

    expect(await webhookOverview(newsroom.actor('admin'), hook)).toEqual({ attempts24h: 4, succeeded24h: 1, pending: 2, held: 1 })
  })

  it("is a 404 for another newsroom's subscription", async () => {
    const hook = await subscription(newsroom)
    await expect(webhookOverview(other.actor('admin'), hook)).rejects.toBeInstanceOf(NotFoundError)
  })
})
