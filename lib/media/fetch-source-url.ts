import http from 'node:http'
import https from 'node:https'
import { Readable } from 'node:stream'
import { DomainError } from '../errors.ts'
import { bareHostname, checkWebhookUrl, isPrivateAddress, privateUrlsAllowed, safeLookup, UnsafeUrlError } from '../webhooks/url-safety.ts'
import { isIP } from 'node:net'
import { mediaFetchTimeoutMs } from './media-limits.ts'
import { receiveToTempFile, TooLargeError, type ReceivedFile } from './receive-upload.ts'

const refused = (why: string) => new DomainError('source_url_refused', `source_url was not fetched: ${why}. Nothing was stored.`)
const maxRedirects = 3

/**
 * Fetches a wire photo with the rules webhook URLs follow (lib/webhooks/url-safety.ts): https,
 * no credentials, a host whose every address is public, checked again for the address the
 * socket connects to (no DNS rebinding) and for every redirect. Streamed to a temp file, capped
 * at `maxBytes`, and abandoned after MEDIA_FETCH_TIMEOUT_MS in all (or at `until`, when the
 * caller's own deadline comes first): a private, slow or too large source is a 422 naming why.
 */
export async function fetchSourceUrl(raw: string, maxBytes: number, until = Infinity): Promise<ReceivedFile> {
  const deadline = Math.min(Date.now() + mediaFetchTimeoutMs(), until)
  let url = raw
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const problem = await checkWebhookUrl(url)
    if (problem) throw refused(problem.replace(/^url /, 'the URL ').replace(/webhooks cannot reach/, 'the service does not fetch from').replace(/\.$/, ''))
    const target = new URL(url)
    const host = bareHostname(target)
    if (!privateUrlsAllowed() && isIP(host) && isPrivateAddress(host)) throw refused(`${host} is a private, loopback or link-local address`)
    const response = await request(target, deadline)
    if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && response.headers.location) {
      // Closed, not drained: a redirect's body is nothing we want, and one that never ends must
      // not keep the connection (and this process reading it) past the fetch's deadline.
      response.destroy()
      // The Location is the remote server's text: one that is no URL is its fault, a 422, not ours.
      if (!URL.canParse(response.headers.location, target)) throw refused(`the server redirected to something that is not a URL (${JSON.stringify(response.headers.location.slice(0, 200))})`)
      url = new URL(response.headers.location, target).toString()
      continue
    }
    if (response.statusCode !== 200) {
      response.destroy()
      throw refused(`the server answered ${response.statusCode}`)
    }
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy()
      throw refused(`the image is larger than this newsroom accepts (${declared.toLocaleString('en')} bytes; the limit is ${maxBytes.toLocaleString('en')})`)
    }
    const timer = setTimeout(() => response.destroy(new Error('timeout')), Math.max(0, deadline - Date.now()))
    try {
      return await receiveToTempFile(response as Readable, maxBytes)
    } catch (error) {
      if (error instanceof TooLargeError) throw refused(`the image is larger than this newsroom accepts (${maxBytes.toLocaleString('en')} bytes)`)
      if (Date.now() >= deadline) throw refused(`the server did not send the image within ${mediaFetchTimeoutMs() / 1000} s`)
      throw refused('the connection failed while reading the image')
    } finally {
      clearTimeout(timer)
    }
  }
  throw refused(`more than ${maxRedirects} redirects`)
}

function request(url: URL, deadline: number): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http
    const req = client.get(url, { lookup: safeLookup(), headers: { 'User-Agent': 'newsroom-media/1', Accept: 'image/*' } }, resolve)
    const timer = setTimeout(() => req.destroy(new Error('timeout')), Math.max(0, deadline - Date.now()))
    req.on('response', () => clearTimeout(timer))
    req.on('error', (error) => {
      clearTimeout(timer)
      if (error instanceof UnsafeUrlError) reject(refused(error.message.replace(/^Refused: /, '').replace(/\.$/, '')))
      else if (Date.now() >= deadline) reject(refused(`the server did not answer within ${mediaFetchTimeoutMs() / 1000} s`))
      else reject(refused(`the server could not be reached (${(error as NodeJS.ErrnoException).code ?? 'connection failed'})`))
    })
  })
}

/** The last segment of a source URL as a filename (default for the record), or null; a malformed %-escape is kept as sent rather than thrown. */
export function filenameFromUrl(url: string): string | null {
  const last = new URL(url).pathname.split('/').pop() || ''
  try {
    return decodeURIComponent(last) || null
  } catch {
    return last || null
  }
}
