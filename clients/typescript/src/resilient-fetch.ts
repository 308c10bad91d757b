/**
 * The fetch the client sends through: retries that honour Retry-After, an Idempotency-Key on
 * every POST (so a retried create runs once), and ETag revalidation of GETs. It takes and
 * returns plain Requests and Responses, so openapi-fetch (or anything else) can use it.
 */
export type RetryOptions = {
  /** Attempts after the first; 0 turns retries off. Default 3. */
  retries?: number
  /** The wait before the first retry when the answer names none; doubled each time. Default 500 ms. */
  baseDelayMs?: number
  /** The longest wait, whatever Retry-After asks. Default 60 s. */
  maxDelayMs?: number
}

export type ResilientFetchOptions = RetryOptions & {
  fetch?: (request: Request) => Promise<Response>
  /** Revalidate GETs with If-None-Match and answer a 304 from the copy kept. Default true. */
  etagCache?: boolean | EtagCache
  /** How to wait; tests pass a recorder. */
  sleep?: (ms: number) => Promise<void>
}

type CachedAnswer = { etag: string; status: number; headers: [string, string][]; body: string }

/** The last answer of each GET URL that carried an ETag, bounded to `maxEntries`. */
export class EtagCache {
  private readonly answers = new Map<string, CachedAnswer>()
  constructor(private readonly maxEntries = 500) {}
  get(url: string): CachedAnswer | undefined {
    return this.answers.get(url)
  }
  set(url: string, answer: CachedAnswer): void {
    this.answers.delete(url)
    this.answers.set(url, answer)
    if (this.answers.size > this.maxEntries) this.answers.delete(this.answers.keys().next().value!)
  }
}

/** Seconds (RFC 9110 delay-seconds) or an HTTP date, as milliseconds from now; null if absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

// 429 and 503 say the request was not carried out, so any method may be sent again.
const refusedStatuses = new Set([429, 503])
// A gateway's failure or a lost connection may come after the work was done: only requests
// that are safe to repeat (reads, and POSTs under an Idempotency-Key) are sent again.
const uncertainStatuses = new Set([502, 504])

function safeToRepeat(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || (request.method === 'POST' && request.headers.has('Idempotency-Key'))
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function resilientFetch(options: ResilientFetchOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const retries = options.retries ?? 3
  const baseDelayMs = options.baseDelayMs ?? 500
  const maxDelayMs = options.maxDelayMs ?? 60_000
  const sleep = options.sleep ?? defaultSleep
  const cache = options.etagCache === false ? null : options.etagCache instanceof EtagCache ? options.etagCache : new EtagCache()

  return async (original: Request) => {
    const headers = new Headers(original.headers)
    if (original.method === 'POST' && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', crypto.randomUUID())
    const cached = original.method === 'GET' && cache && !headers.has('If-None-Match') ? cache.get(original.url) : undefined
    if (cached) headers.set('If-None-Match', cached.etag)
    const request = new Request(original, { headers })

    for (let attempt = 0; ; attempt++) {
      let response: Response
      try {
        response = await send(request.clone())
      } catch (error) {
        if (attempt >= retries || !safeToRepeat(request)) throw error
        await sleep(Math.min(baseDelayMs * 2 ** attempt, maxDelayMs))
        continue
      }
      const retryable = refusedStatuses.has(response.status) || (uncertainStatuses.has(response.status) && safeToRepeat(request))
      if (retryable && attempt < retries) {
        await response.body?.cancel()
        await sleep(Math.min(retryAfterMs(response.headers.get('Retry-After')) ?? baseDelayMs * 2 ** attempt, maxDelayMs))
        continue
      }
      if (response.status === 304 && cached) {
        // Unchanged: the kept answer, as the server would have sent it, with this response's fresh headers beside.
        const merged = new Headers(cached.headers)
        response.headers.forEach((value, name) => merged.set(name, value))
        return new Response(cached.body, { status: cached.status, headers: merged })
      }
      const etag = response.headers.get('ETag')
      if (cache && request.method === 'GET' && response.status === 200 && etag) {
        const body = await response.clone().text()
        cache.set(request.url, { etag, status: response.status, headers: [...response.headers.entries()], body })
      }
      return response
    }
  }
}
