import { sendMail } from '../mail/send-mail.ts'
import { retrySchedule } from './retry-schedule.ts'
import type { DisableNotice } from './disable-subscription.ts'

/** Where people reach the portal and the API; the launcher sets NEXTAUTH_URL. */
function appUrl(): string {
  return (process.env.APP_URL ?? process.env.NEXTAUTH_URL ?? 'http://localhost:3000').replace(/\/+$/, '')
}

function scheduleInHours(): number {
  return Math.round(retrySchedule.reduce((total, wait) => total + wait.ms, 0) / 360_000) / 10
}

/** The e-mail to a subscription's owner when it was disabled: which, why, and how to turn it back on. */
export function composeDisableNotice(notice: DisableNotice): { subject: string; text: string } {
  const base = appUrl()
  const last = [
    notice.lastResponseStatus !== null ? `HTTP ${notice.lastResponseStatus}` : 'no HTTP response',
    notice.lastError ? `(${notice.lastError})` : '',
  ].filter(Boolean).join(' ')
  const text = [
    `Hello ${notice.ownerName},`,
    '',
    `we disabled the webhook subscription ${notice.subscriptionId} of ${notice.tenantName}:`,
    '',
    `  URL:    ${notice.url}`,
    `  Status: disabled (reason: ${notice.reason}) since ${notice.disabledAt}`,
    '',
    notice.reason === 'receiver_gone'
      ? 'Why: your receiver answered 410 Gone, which says it no longer wants these deliveries, so we stopped at once.'
      : `Why: one delivery failed ${notice.attempts} times in a row — the first attempt and ${notice.attempts - 1} retries over about ${scheduleInHours()} hours.`,
    `  Delivery:     ${notice.deliveryId} (event ${notice.kind}, ${notice.eventId})`,
    `  Last attempt: ${last}`,
    '',
    'While it is disabled no events are sent to it, and deliveries that were waiting for a retry have been stopped.',
    'A delivery fails when your receiver does not answer with a 2xx status within 10 seconds (redirects are not followed).',
    '',
    'To re-enable it once your receiver works again:',
    `  - in the portal: Settings → Webhooks (${base}/settings/webhooks), then Re-enable on this subscription; or`,
    `  - with the API: PATCH ${base}/v1/webhooks/${notice.subscriptionId} with the JSON body {"status": "enabled"},`,
    '    using a token with the webhooks:manage scope.',
    '',
    'Events that occur while it is disabled are not sent later; the deliveries log lists what failed.',
  ].join('\n')
  const subject = notice.reason === 'receiver_gone' ? `Webhook disabled: the receiver answered 410 Gone: ${notice.url}` : `Webhook disabled after repeated failures: ${notice.url}`
  return { subject, text }
}

/** E-mails the owner that the subscription was disabled (SMTP, or the mail log in development). */
export async function sendDisableNotice(notice: DisableNotice): Promise<{ mailId: string; transport: 'smtp' | 'log' }> {
  const { subject, text } = composeDisableNotice(notice)
  const sent = await sendMail({ tenantId: notice.tenantId, to: notice.ownerEmail, subject, text })
  return { mailId: sent.id, transport: sent.transport }
}
