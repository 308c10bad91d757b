import type { ApiRequest } from './api-request.ts'
import { xxh64 } from '@node-rs/xxhash'
import type { CachedBody } from './response-cache.ts'
import { bytesPayload } from './text-response.ts'
import { jsonBytes } from '../json-bytes.ts'
import { jsonResponse } from './with-api.ts'

// Clients and private caches may keep a copy but must ask again before using it; an unchanged
// answer then costs a 304 with no body. Never `public`: every answer is one newsroom's.
const revalidate = 'private, no-cache'

/** Whether an If-None-Match header names `etag` (or `*`): the client's copy is current. */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '')
    return tag === '*' || tag === etag
  })
}

/** A GET's JSON body with its strong ETag: the one given (an article's version), else one of the content. */
export function renderJson(data: unknown, etag?: string): CachedBody {
  // Rendered straight to bytes (json-bytes.ts): a 200 KB page is never one string.
  const payload = bytesPayload(jsonBytes(data))
  return Object.assign(payload, { etag: etag ?? contentEtag(payload.bytes) })
}

/**
 * A list's ETag is its content's: it changes when any row, the total or the next cursor does.
 * XXH64 of the bytes, not SHA-256: an ETag is compared only with one the same client was given
 * for the same URL, so it needs no resistance to a chosen collision, only to a chance one (one in
 * 2^64 a revalidation). SHA-256 of a 200 KB page was ~4 % of a cold list's CPU (issue 50), XXH64
 * a tenth of that.
 */
export function contentEtag(bytes: Uint8Array): string {
  return `"${xxh64(bytes).toString(36)}"`
}

/**
 * A GET's answer with its ETag, or 304 Not Modified with no body when the request's
 * If-None-Match already names that ETag. Authentication, scope and rate limit have run
 * before this, as for any other answer.
 */
export function conditionalAnswer(request: ApiRequest, rendered: CachedBody, extraHeaders: Record<string, string> = {}): Response {
  const headers = { ...extraHeaders, ETag: rendered.etag, 'Cache-Control': revalidate }
  if (ifNoneMatchHits(request.headers.get('if-none-match'), rendered.etag)) return new Response(null, { status: 304, headers })
  return jsonResponse(null, { headers, body: rendered })
}

export function conditionalJson(request: ApiRequest, data: unknown, options: { etag?: string; headers?: Record<string, string> } = {}): Response {
  return conditionalAnswer(request, renderJson(data, options.etag), options.headers)
}

/** The parsed query as a cache key: the same request in any parameter order is one key. */
export function queryKey(query: Record<string, unknown>): string {
  return JSON.stringify(
    Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  )
}
