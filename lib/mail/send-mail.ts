import nodemailer, { type Transporter } from 'nodemailer'
import { createId } from '../ids.ts'
import { systemDb } from '../tenancy/tenant-db.ts'

export type MailToSend = { tenantId: string | null; to: string; subject: string; text: string }
export type SentMail = { id: string; transport: 'smtp' | 'log' }

const defaultFrom = 'Newsroom <no-reply@newsroom.localhost>'

let cached: { url: string; transporter: Transporter } | undefined

function smtpTransport(url: string): Transporter {
  if (cached?.url !== url) {
    cached?.transporter.close()
    // A dead mail server must fail the send (and its retry) quickly, not hang it.
    cached = { url, transporter: nodemailer.createTransport(url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }) }
  }
  return cached.transporter
}

/**
 * Sends an e-mail through SMTP_URL (from MAIL_FROM) when one is configured; otherwise
 * records it in the mail log table and the server log, so development needs no mail
 * server. Every message is recorded either way. An SMTP failure is recorded and thrown, so
 * a durable step retries it.
 */
export async function sendMail(mail: MailToSend): Promise<SentMail> {
  const db = systemDb()
  const id = createId('mail')
  const url = process.env.SMTP_URL
  if (!url) {
    await db.mailMessage.create({ data: { id, tenantId: mail.tenantId, to: mail.to, subject: mail.subject, text: mail.text, transport: 'log', sentAt: new Date() } })
    console.info(`[mail] SMTP_URL is not set; recorded ${id} for ${mail.to} instead of sending it:\nSubject: ${mail.subject}\n\n${mail.text}`)
    return { id, transport: 'log' }
  }
  try {
    await smtpTransport(url).sendMail({ from: process.env.MAIL_FROM || defaultFrom, to: mail.to, subject: mail.subject, text: mail.text })
  } catch (error) {
    await db.mailMessage.create({
      data: { id, tenantId: mail.tenantId, to: mail.to, subject: mail.subject, text: mail.text, transport: 'smtp', error: (error as Error).message.slice(0, 1_000) },
    })
    throw error
  }
  await db.mailMessage.create({ data: { id, tenantId: mail.tenantId, to: mail.to, subject: mail.subject, text: mail.text, transport: 'smtp', sentAt: new Date() } })
  return { id, transport: 'smtp' }
}
