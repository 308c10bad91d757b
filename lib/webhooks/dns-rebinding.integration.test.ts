import { createServer, type AddressInfo, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createTestTenant } from '../../tests/support/fixtures.ts'
import { db } from '../db/client.ts'
import { ValidationError } from '../errors.ts'
import { recordEvents } from '../events/record-event.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from './create-deliveries.ts'
import { deliverAttempt } from './deliver-attempt.ts'
import { createWebhook } from './manage-subscriptions.ts'
import { setHostResolver } from './url-safety.ts'
import { stubEnv } from '../../tests/support/stub-env.ts'

// A receiver name that resolved to a public address when the subscription was made, and to
// 127.0.0.1 when the delivery goes out (DNS rebinding), with private addresses not allowed:
// the attempt is refused before any connection is made to this machine.

let listener: Server
let port: number
let connections = 0

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: undefined, WEBHOOK_SECRET_KEY: 'rebinding-test-key' })
  listener = createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as AddressInfo).port
})

afterAll(async () => {
  setHostResolver(undefined)
  await new Promise((resolve) => listener.close(resolve))
  vi.unstubAllEnvs()
})

describe('delivery-time address check', () => {
  it('refuses a host that re-binds to 127.0.0.1 after the subscription was accepted', async () => {
    const newsroom = await createTestTenant()
    await expect(createWebhook(newsroom.actor('admin'), { url: `https://localhost:${port}/hook`, events: ['article.published'], secret: 'rebinding-secret-012' })).rejects.toBeInstanceOf(ValidationError)

    setHostResolver(async () => [{ address: '93.184.216.34', family: 4 }])
    const subscription = await createWebhook(newsroom.actor('admin'), { url: `https://receiver.example:${port}/hook`, events: ['article.published'], secret: 'rebinding-secret-012' })
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: {} }]))
    const [delivery] = await createDeliveriesForEvent(event!.id)
    expect(delivery!.subscriptionId).toBe(subscription.id)

    setHostResolver(async () => [{ address: '127.0.0.1', family: 4 }])
    const outcome = await deliverAttempt(delivery!.deliveryId, { kind: 'scheduled', retryDelayMs: 60_000 })

    expect(outcome).toMatchObject({ result: 'failed', attempt: 1, responseStatus: null, error: expect.stringMatching(/^Refused: receiver\.example resolves to .*127\.0\.0\.1/) })
    expect(connections).toBe(0)
    expect(await db.deliveryAttempt.findFirstOrThrow({ where: { deliveryId: delivery!.deliveryId } })).toMatchObject({ attempt: 1, responseStatus: null, error: outcome.error })
  })
})
