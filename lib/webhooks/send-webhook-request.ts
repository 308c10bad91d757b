import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { networkErrorText } from './network-error-text.ts'
import { bareHostname, isPrivateAddress, privateUrlsAllowed, safeLookup } from './url-safety.ts'

export const deliveryTimeoutMs = 10_000
export const webhookUserAgent = 'Newsroom-Webhooks/1.0'

export type RequestOutcome = {
  ok: boolean
  responseStatus: number | null
  durationMs: number
  error: string | null
  /** From a 429 or 503 answer's Retry-After: how long the receiver asked us to wait, in ms. */
  retryAfterMs?: number | null
  /** The receiver's answer as the deliveries log keeps it: headers and the first 4 KB of the body. */
  response?: { headers: Record<string, string>; body: string; bodyTruncated: boolean } | null
}

/** How much of a receiver's answer the deliveries log keeps. */
export const keptResponseBytes = 4 * 1024

/**
 * Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in ms from `now`;
 * null when absent or unreadable, 0 for a date already past.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!text) return null
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // Every HTTP-date form starts with the day's name; Date.parse alone would take "-5" as a year.
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

// Receivers only need to answer 2xx; their bodies are read (so the connection can finish)
// but never kept, and a chatty receiver cannot make us buffer megabytes.
const maxResponseBytes = 64 * 1024

/**
 * POSTs one webhook body and reports what happened; never throws. Redirects are not
 * followed, the whole exchange has `timeoutMs`, and the connection goes only to addresses
 * that passed the private-address check (see safeLookup).
 */
export async function sendWebhookRequest(options: {
  url: string
  body: string
  headers: Record<string, string>
  timeoutMs?: number
  allowPrivate?: boolean
}): Promise<RequestOutcome> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const allowPrivate = options.allowPrivate ?? privateUrlsAllowed()
  const timeoutMs = options.timeoutMs ?? deliveryTimeoutMs

  let url: URL
  try {
    url = new URL(options.url)
  } catch {
    return { ok: false, responseStatus: null, durationMs: elapsed(), error: 'The subscription url is not a valid URL.' }
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return { ok: false, responseStatus: null, durationMs: elapsed(), error: `Refused: ${url.protocol.replace(':', '')} URLs are not allowed; use https.` }
  }
  // Sockets skip `lookup` for literal addresses, so those are checked here.
  const hostname = bareHostname(url)
  if (!allowPrivate && isIP(hostname) && isPrivateAddress(hostname)) {
    return { ok: false, responseStatus: null, durationMs: elapsed(), error: `Refused: ${hostname} is a private, loopback or link-local address.` }
  }

  return new Promise<RequestOutcome>((resolve) => {
    let settled = false
    const finishRequest = (outcome: Omit<RequestOutcome, 'durationMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...outcome, durationMs: elapsed() })
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(url, {
      method: 'POST',
      headers: { ...options.headers, 'Content-Length': String(Buffer.byteLength(options.body)) },
      lookup: safeLookup(allowPrivate),
      agent: false,
    })
    const timer = setTimeout(() => {
      finishRequest({ ok: false, responseStatus: null, error: `Timed out after ${timeoutMs / 1000} s without a complete response.` })
      request.destroy()
    }, timeoutMs)

    request.on('response', (response) => {
      const status = response.statusCode ?? 0
      let received = 0
      const kept: Buffer[] = []
      response.on('data', (chunk: Buffer) => {
        if (received < keptResponseBytes) kept.push(chunk.subarray(0, keptResponseBytes - received))
        received += chunk.length
        if (received > maxResponseBytes) response.destroy()
      })
      const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]))
      const finish = (outcome: Omit<RequestOutcome, 'durationMs' | 'response'>) =>
        finishRequest({ ...outcome, response: { headers, body: new TextDecoder().decode(Buffer.concat(kept)), bodyTruncated: received > keptResponseBytes } })
      const done = () => {
        if (status >= 200 && status < 300) finish({ ok: true, responseStatus: status, error: null })
        else if (status >= 300 && status < 400) finish({ ok: false, responseStatus: status, error: `The receiver answered ${status} (redirects are not followed; use the final URL).` })
        else if (status === 429 || status === 503) {
          const retryAfterMs = parseRetryAfter(response.headers['retry-after'])
          const asked = retryAfterMs === null ? '' : ` and asked to wait ${Math.ceil(retryAfterMs / 1000)} s (Retry-After)`
          finish({ ok: false, responseStatus: status, error: `The receiver answered ${status}${asked}.`, retryAfterMs })
        } else if (status === 410) finish({ ok: false, responseStatus: status, error: 'The receiver answered 410 Gone: it no longer wants these deliveries.' })
        else finish({ ok: false, responseStatus: status, error: `The receiver answered ${status}.` })
      }
      response.on('end', done)
      response.on('close', done)
      response.on('error', done)
    })
    const target = { host: hostname, port: url.port || (url.protocol === 'https:' ? '443' : '80') }
    request.on('error', (error) => finishRequest({ ok: false, responseStatus: null, error: networkErrorText(error, target) }))
    request.end(options.body)
  })
}
