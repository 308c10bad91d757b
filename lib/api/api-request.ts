import type { BodyPace } from './body-pace.ts'

/**
 * What a /v1 handler may read of its request: the method, the URL, headers by name and the
 * body stream. A web Request is one (Next, tests); the production server hands handlers a view
 * over Node's own request instead (lib/server/node-http.ts), because building a web Request —
 * a Headers copy, a second URL parse, an AbortSignal — cost a tenth of a cached GET (bench,
 * perf profile of `GET /v1/articles/{id}`). Narrow on purpose: the compiler keeps handlers to
 * what both kinds provide.
 */
export type ApiRequest = {
  readonly method: string
  readonly url: string
  readonly headers: { get(name: string): string | null }
  readonly body: ReadableStream<Uint8Array> | null
  /**
   * The whole body's bytes read straight off the connection, where the request has one to read
   * (the production server's view over Node's request): without the web stream `body` would
   * make. Null for a request without a body (GET, HEAD); 'too-large' once more than `maxBytes`
   * arrived (the rest is not read); rejects if the client went away mid-body. Read once, by
   * readJsonBody, instead of `body`.
   */
  readonly bodyBytes?: (maxBytes: number, pace?: (giveUp: (error: Error) => void) => BodyPace) => Promise<Buffer | 'too-large' | null>
  /**
   * Says the body is about to be read under the pace rule (body-pace.ts) through `body`: the
   * production server then leaves its own bound on receiving the request (REQUEST_TIMEOUT_MS,
   * lib/server/http-server.ts) to that rule, so a long upload that keeps the pace is not cut.
   * bodyBytes with a `pace` says so itself. Absent on a web Request (Next's routes).
   */
  readonly bodyPaced?: () => void
  /** Aborts when the client leaves before the answer is delivered (Next's route handlers give one). */
  readonly signal?: AbortSignal
  /** `url` already parsed, where whoever made the request had to (the production server's router); never modified. */
  readonly parsedUrl?: URL
}

/** The request's URL as a URL: the one the server parsed to route it, else parsed here. */
export function requestUrl(request: ApiRequest): URL {
  return request.parsedUrl ?? new URL(request.url)
}

/** The request as a GET, for HEAD: same URL and headers, no body. */
export function asGet(request: ApiRequest): ApiRequest {
  return { method: 'GET', url: request.url, headers: request.headers, body: null }
}
