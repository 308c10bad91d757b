import { InngestTestEngine } from '@inngest/test'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { deliverWebhook } from '../../inngest/functions/deliver-webhook.ts'
import { db } from '../../lib/db/client.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { sendMail } from '../../lib/mail/send-mail.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { createTestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// The owner's e-mail through a real SMTP server on 127.0.0.1 (the smtp-server package),
// after a delivery fails seven times.

type Received = { from: string; to: string[]; raw: string }

const inbox: Received[] = []
let smtp: SMTPServer
let smtpPort: number
let receiver: Server
let receiverUrl: string

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  smtpPort = (smtp.server.address() as AddressInfo).port

  receiver = createServer((_req, res) => res.writeHead(503).end('down for maintenance'))
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/inbound`

  stubEnv({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_SECRET_KEY: 'smtp-test-key',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    MAIL_FROM: 'Newsroom Alerts <alerts@newsroom.test>',
    APP_URL: 'https://newsroom.example',
  })
})

afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
  await new Promise((resolve) => { receiver.closeAllConnections(); receiver.close(resolve) })
  vi.unstubAllEnvs()
})

/** The text part of a simple nodemailer message: headers, then a quoted-printable or plain body. */
function readMessage(raw: string): { headers: string; text: string } {
  const split = raw.indexOf('\r\n\r\n')
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  let body = raw.slice(split + 4)
  if (/Content-Transfer-Encoding: quoted-printable/i.test(headers)) {
    body = body.replace(/=\r\n/g, '')
    const bytes: number[] = []
    for (let i = 0; i < body.length; i++) {
      if (body[i] === '=' && /^[0-9A-F]{2}$/i.test(body.slice(i + 1, i + 3))) {
        bytes.push(parseInt(body.slice(i + 1, i + 3), 16))
        i += 2
      } else bytes.push(...Buffer.from(body[i]!, 'utf8'))
    }
    body = Buffer.from(bytes).toString('utf8')
  }
  return { headers, text: body.replace(/\r\n/g, '\n') }
}

describe('the disable e-mail over SMTP', () => {
  it('reaches the owner after the seventh failed attempt, saying which subscription, why, and how to re-enable it', async () => {
    const newsroom = await createTestTenant()
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['article.published'], secret: 'smtp-test-secret-0123' })
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: 'art_mail' } }]))
    const [delivery] = await createDeliveriesForEvent(event!.id)

    const engine = new InngestTestEngine({
      function: deliverWebhook,
      events: [{ name: 'newsroom/webhook.delivery_requested', data: { delivery_id: delivery!.deliveryId, subscription_id: subscription.id, tenant_id: newsroom.tenant.id, event_id: event!.id, kind: 'article.published' } }],
      steps: retrySchedule.map((wait) => ({ id: wait.id, handler: () => null })),
    })
    const { result } = await engine.execute()
    expect(result).toMatchObject({ result: 'failed', attempts: 7, disabled: true })

    expect(inbox).toHaveLength(1)
    const [mail] = inbox
    expect(mail!.from).toBe('alerts@newsroom.test')
    expect(mail!.to).toEqual([newsroom.users.admin.email])
    const { headers, text } = readMessage(mail!.raw)
    expect(headers).toMatch(/^Subject: Webhook disabled after repeated failures: http:\/\/127\.0\.0\.1:\d+\/inbound$/m)
    expect(headers).toContain('From: Newsroom Alerts <alerts@newsroom.test>')
    expect(text).toContain(`webhook subscription ${subscription.id}`)
    expect(text).toContain(`URL:    ${receiverUrl}`)
    expect(text).toContain('reason: delivery_failures')
    expect(text).toContain('failed 7 times in a row — the first attempt and 6 retries')
    expect(text).toContain('Last attempt: HTTP 503')
    expect(text).toContain(`Delivery:     ${delivery!.deliveryId} (event article.published, ${event!.id})`)
    expect(text).toContain('Settings → Webhooks (https://newsroom.example/settings/webhooks)')
    expect(text).toContain(`PATCH https://newsroom.example/v1/webhooks/${subscription.id} with the JSON body {"status": "enabled"}`)

    const row = await db.mailMessage.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id } })
    expect(row).toMatchObject({ to: newsroom.users.admin.email, transport: 'smtp', error: null })
    expect(row.sentAt).toBeInstanceOf(Date)
  })

  it('records and throws an SMTP failure, so the durable step retries it', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    stubEnv({ SMTP_URL: `smtp://127.0.0.1:${port}` })
    try {
      await expect(sendMail({ tenantId: null, to: 'someone@example.com', subject: 'Unsent', text: 'x' })).rejects.toThrow(/ECONNREFUSED/)
      const row = await db.mailMessage.findFirstOrThrow({ where: { subject: 'Unsent' } })
      expect(row).toMatchObject({ transport: 'smtp', sentAt: null, error: expect.stringContaining('ECONNREFUSED') })
    } finally {
      stubEnv({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}` })
    }
  })
})
