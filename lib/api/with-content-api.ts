import type { z } from 'zod'
import type { ApiRequest } from './api-request.ts'
import { createId } from '../ids.ts'
import { parseInput } from '../parse-input.ts'
import { routeTemplate } from '../ops/metrics.ts'
import { observeApiRequest } from '../ops/observe-api-request.ts'
import { authenticateContentKey } from '../content/content-keys.ts'
import { listSurrogateKey, newsroomSurrogateKey } from '../content/surrogate-keys.ts'
import type { ActingTenant } from '../tenancy/actor.ts'
import { NotFoundError } from '../errors.ts'
import { ifNoneMatchHits } from './conditional-response.ts'
import type { ContentOperation } from './operations/content-operations.ts'
import { problemResponse } from './problem.ts'
import { cachedRead, type CachedBody } from './response-cache.ts'
import { readOnly } from '../db/read-routing.ts'
import { setResponseHeaders } from './text-response.ts'
import { consumeContentKeyRequest, consumeUnauthenticatedRequest, rateLimitHeaders } from './rate-limit.ts'
import { clientAddress } from '../security/client-address.ts'
import { jsonResponse, errorResponse, type RouteHandler } from './with-api.ts'

export type ContentContext<Query, Params> = {
  tenant: ActingTenant
  query: Omit<Query, 'key'>
  params: Params
  /** The response cache under the newsroom's article generation, as for /v1. */
  cachedRead: (key: string, produce: () => Promise<CachedBody>) => Promise<CachedBody>
}

/** A content answer: its body and the surrogate keys (besides the newsroom's) a purge finds it by. */
export type ContentAnswer = { body: CachedBody; keys: string[] }

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined

// A shared cache keeps a page until a purge drops it (or this long without one: a lost purge
// only lasts so long); browsers ask again each time, since no purge reaches them.
const sharedMaxAge = () => Number(process.env.CONTENT_S_MAXAGE ?? 300)
const staleWhileRevalidate = 30
const notFoundMaxAge = 60

/**
 * The door of the public content API, as withApi is for /v1: a content key (the `key` query
 * parameter, or an `X-Content-Key` header) names the newsroom; the query and path are
 * validated by the declaration's schemas; the answer is public and cacheable, tagged with
 * surrogate keys (`Surrogate-Key` for Varnish and Fastly, `Cache-Tag` for Cloudflare).
 * Failures are problem+json; an unknown key or a bad query is never cached, a 404 only briefly
 * and under the list key, so a publication that makes it exist purges it.
 */
export function withContentApi<Q extends z.ZodType, P extends z.ZodType | undefined>(
  operation: ContentOperation & { query: Q; params?: P },
  handler: (context: ContentContext<Infer<Q>, Infer<P>>) => Promise<ContentAnswer>,
): RouteHandler {
  const route = routeTemplate(operation.path)
  const serve: RouteHandler = async (request, routeContext) => {
    const startedAt = performance.now()
    const requestId = createId('req')
    let tenant: ActingTenant | null = null
    const response = await (async () => {
      try {
        const url = new URL(request.url)
        const headerKey = request.headers.get('x-content-key')
        const key = url.searchParams.get('key') ?? headerKey
        tenant = key ? await authenticateContentKey(key) : null
        // A known key spends its own budget; guesses and key-less requests spend the address's.
        const decision = tenant && key ? await consumeContentKeyRequest(key) : await consumeUnauthenticatedRequest(clientAddress(request.headers.get('x-forwarded-for')))
        if (!decision.allowed) {
          const limited = problemResponse(
            { code: 'rate_limited', detail: tenant ? `This content key made more than ${decision.limit} uncached requests in the current window; retry in ${decision.retryAfterSeconds} s.` : `Too many requests without a valid content key from your address; retry in ${decision.retryAfterSeconds} s.` },
            requestId,
            rateLimitHeaders(decision),
          )
          setResponseHeaders(limited, { 'Cache-Control': 'no-store' })
          return limited
        }
        if (!tenant) {
          return problemResponse(
            { code: 'unauthenticated', detail: key ? 'The content key is unknown or revoked. Create one in Settings → API Keys → Content keys.' : 'Send your content key as ?key=nrc_… (or an X-Content-Key header).' },
            requestId,
          )
        }
        const query = parseInput(operation.query, Object.fromEntries(url.searchParams), 'The request query parameters have invalid fields; see errors.') as Infer<Q> & { key?: string }
        const params = operation.params ? (parseInput(operation.params, await routeContext.params, 'The request path parameters have invalid fields; see errors.') as Infer<P>) : (undefined as Infer<P>)
        const { key: _key, ...rest } = query
        const newsroom = tenant.id
        const acting = tenant
        const vary: Record<string, string> = headerKey ? { Vary: 'X-Content-Key' } : {}
        try {
          const answer = await readOnly(() => handler({ tenant: acting, query: rest as Omit<Infer<Q>, 'key'>, params, cachedRead: (cacheKey, produce) => cachedRead(newsroom, `content:${cacheKey}`, produce) }))
          return publicAnswer(request, answer, newsroom, vary)
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error
          const missing = problemResponse({ code: 'not_found', detail: error.message }, requestId, vary)
          setResponseHeaders(missing, { 'Cache-Control': `public, max-age=0, s-maxage=${notFoundMaxAge}`, ...tagHeaders([newsroomSurrogateKey(newsroom), listSurrogateKey(newsroom)]) })
          return missing
        }
      } catch (error) {
        return errorResponse(error, requestId)
      }
    })()
    setResponseHeaders(response, { 'X-Request-Id': requestId })
    observeApiRequest({ requestId, method: request.method, route, status: response.status, durationMs: performance.now() - startedAt, tenantId: (tenant as ActingTenant | null)?.id })
    return response
  }
  // The declaration it serves, for the check that the content API's document lists every route.
  return Object.assign(serve, { contentOperation: operation })
}

function publicAnswer(request: ApiRequest, answer: ContentAnswer, newsroom: string, extra: Record<string, string>): Response {
  const headers = {
    ...extra,
    ETag: answer.body.etag,
    'Cache-Control': `public, max-age=0, s-maxage=${sharedMaxAge()}, stale-while-revalidate=${staleWhileRevalidate}`,
    ...tagHeaders([newsroomSurrogateKey(newsroom), ...answer.keys]),
  }
  if (ifNoneMatchHits(request.headers.get('if-none-match'), answer.body.etag)) return new Response(null, { status: 304, headers })
  return jsonResponse(null, { headers, body: answer.body })
}

function tagHeaders(keys: string[]): Record<string, string> {
  return { 'Surrogate-Key': keys.join(' '), 'Cache-Tag': keys.join(',') }
}
