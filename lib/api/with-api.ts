import type { z } from 'zod'
import { asGet, requestUrl, type ApiRequest } from './api-request.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { authenticateToken, touchToken, type TokenPrincipal } from '../tokens/authenticate-token.ts'
import { hasScope, scopeNames } from '../tokens/scopes.ts'
import { tokenRefusal } from '../tokens/token-bounds.ts'
import { parseInput } from '../parse-input.ts'
import { defaultMaxBodyBytes } from './body-limits.ts'
import type { ApiOperationSpec } from './openapi/api-operation.ts'
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, renewIdempotencyLease, replayResponse, requestFingerprint, validateIdempotencyKey } from './idempotency.ts'
import { runAsIdempotentUnit } from '../events/idempotent-unit.ts'
import { failureResponse } from './failure.ts'
import { problemResponse } from './problem.ts'
import { consumeTokenRequest, consumeUnauthenticatedRequest, rateLimitHeaders, type RateLimitDecision } from './rate-limit.ts'
import { readJsonBody } from './read-json-body.ts'
import { cachedRead, type CachedBody } from './response-cache.ts'
import { articleGeneration, articleGenerationRedisKey } from '../articles/article-totals.ts'
import { generationFromRedis } from '../generation-counter.ts'
import { eventGeneration, eventGenerationRedisKey } from '../events/event-generation.ts'
import { readOnly } from '../db/read-routing.ts'
import { withLargeBodySlot } from './large-body-gate.ts'
import { responseHeader, setResponseHeaders, textResponse, type TextPayload } from './text-response.ts'
import { clientAddress } from '../security/client-address.ts'
import { routeTemplate } from '../ops/metrics.ts'
import { observeApiRequest, type ApiRequestObservation } from '../ops/observe-api-request.ts'
import { recordApiRequest, requestLogEnabled } from '../request-log/record-api-request.ts'
import { apiRequestEntry } from '../request-log/request-log-entry.ts'

export type ApiContext<Query, Body, Params> = {
  request: ApiRequest
  requestId: string
  principal: TokenPrincipal
  actor: Actor
  query: Query
  body: Body
  params: Params
  /** The response cache (response-cache.ts) for this request's newsroom, under the generation its options name, read beside its rate limit. */
  cachedRead: (key: string, produce: () => Promise<CachedBody>) => Promise<CachedBody>
  /**
   * For an operation whose handler reads a streamed body (`streamedBody`): runs `work` once per
   * Idempotency-Key, the key bound to `content` (what the body turned out to be: an upload's
   * hash and fields), so the same key with another body is refused (422 idempotency_key_reused)
   * and a retry of the same one answered as the first. Without a key, or for other operations
   * (whose key withApi bound to the parsed body already), it just runs `work`.
   */
  once: (content: unknown, work: () => Promise<Response>) => Promise<Response>
}

type RouteParams = Record<string, string | string[] | undefined>
/** Next passes `params`; the /v1 router (lib/server/v1-router.ts) passes `resolvedParams` beside it, read without a wait. */
type RouteContext = { params: Promise<RouteParams>; resolvedParams?: RouteParams }
export type RouteHandler = ((request: ApiRequest, context: RouteContext) => Promise<Response>) & { operation?: ApiOptions<unknown, unknown, unknown> }

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined

/**
 * What withApi enforces, taken from the operation's declaration (lib/api/operations/*): the
 * same object the reference documents, so the scope, schemas and body limit are written once.
 */
export type ApiOptions<QuerySchema, BodySchema, ParamsSchema> = Pick<ApiOperationSpec, 'method' | 'path' | 'scope' | 'alsoScopes' | 'maxBodyBytes' | 'streamedBody'> & {
  query?: QuerySchema
  body?: BodySchema
  params?: ParamsSchema
  /** What this operation's cached answers depend on: the newsroom's articles (default) or its events. */
  cacheGeneration?: 'articles' | 'events'
}

const generations = {
  articles: { redisKey: articleGenerationRedisKey, read: articleGeneration },
  events: { redisKey: eventGenerationRedisKey, read: eventGeneration },
}

const realm = 'Bearer realm="newsroom"'

/**
 * The one door of every /v1 handler: bearer token → rate limit → scope → input validation
 * → handler, with every failure turned into problem+json and every response carrying
 * X-Request-Id and the rate-limit headers. Handlers see a tenant-bound actor and parsed input.
 */
export function withApi<
  QuerySchema extends z.ZodType | undefined = undefined,
  BodySchema extends z.ZodType | undefined = undefined,
  ParamsSchema extends z.ZodType | undefined = undefined,
>(
  options: ApiOptions<QuerySchema, BodySchema, ParamsSchema>,
  handler: (context: ApiContext<Infer<QuerySchema>, Infer<BodySchema>, Infer<ParamsSchema>>) => Promise<Response>,
): RouteHandler {
  const route = routeTemplate(options.path)
  // Made once per operation, not per request.
  const acceptedScopes = [options.scope, ...(options.alsoScopes ?? [])]
  const cacheGeneration = generations[options.cacheGeneration ?? 'articles']
  const serve: RouteHandler = async (request, routeContext) => {
    const startedAt = performance.now()
    // The request id carries when the request arrived, which its request log entry is kept under.
    const arrivedAt = Date.now()
    const requestId = createId('req', arrivedAt)
    const url = requestUrl(request)
    const seen: { principal?: TokenPrincipal } = {}
    const response = await answer(request, url, routeContext, requestId, seen)
    observe(request, route, url, response, requestId, arrivedAt, startedAt, seen.principal)
    return response
  }
  // What the handler serves, for the test that compares the served API with the documented one.
  return Object.assign(serve, { operation: options })

  async function answer(request: ApiRequest, url: URL, routeContext: RouteContext, requestId: string, seen: { principal?: TokenPrincipal }): Promise<Response> {
    let headers: Record<string, string> = {}
    try {
      const token = bearerToken(request)
      // Known at once for most requests (the token cache): only a lookup is awaited.
      const found = token ? authenticateToken(token) : null
      const principal = found instanceof Promise ? await found : found
      if (principal) seen.principal = principal
      if (!principal) {
        const decision = await consumeUnauthenticatedRequest(clientAddress(request.headers.get('x-forwarded-for')))
        if (!decision.allowed) {
          return problemResponse({ code: 'rate_limited', detail: `Too many unauthenticated requests from your address; retry in ${decision.retryAfterSeconds} s.` }, requestId, rateLimitHeaders(decision))
        }
        return problemResponse(
          {
            code: 'unauthenticated',
            detail: token
              ? 'The bearer token is unknown, revoked, or belongs to a deactivated user. Create a new key in Settings → API Keys.'
              : 'Send your API key as Authorization: Bearer <token>.',
          },
          requestId,
          { 'WWW-Authenticate': `${realm}, error="invalid_token"` },
        )
      }

      // A key's own bounds (expiry, allowlist, a rolled secret's overlap): a refusal is recorded
      // in the key's request log, and counts against the address like any failed authentication.
      const address = clientAddress(request.headers.get('x-forwarded-for'))
      const refusal = tokenRefusal(principal.bounds, address)
      if (refusal) {
        const decision = await consumeUnauthenticatedRequest(address)
        if (!decision.allowed) {
          return problemResponse({ code: 'rate_limited', detail: `Too many refused requests from your address; retry in ${decision.retryAfterSeconds} s.` }, requestId, rateLimitHeaders(decision))
        }
        return problemResponse(refusal, requestId, refusal.code === 'unauthenticated' ? { 'WWW-Authenticate': `${realm}, error="invalid_token"` } : {})
      }

      // A GET may be answered from the response cache, which needs the newsroom's change
      // generation: read in the rate limit's round trip, after this request arrived.
      const tenantId = principal.tenant.id
      // Decided at once for most of a busy token's requests (its reserved block): only a round trip is awaited.
      const deciding = consumeTokenRequest(principal.tokenId, principal.tenant.plan, undefined, request.method === 'GET' ? cacheGeneration.redisKey(tenantId) : undefined)
      const decision: RateLimitDecision & { read?: string } = deciding instanceof Promise ? await deciding : deciding
      // undefined when the counter is absent: the cache then reads it through the counter, which starts it.
      const generation = decision.read === undefined ? undefined : generationFromRedis(decision.read)
      headers = rateLimitHeaders(decision)
      if (!decision.allowed) {
        return problemResponse({ code: 'rate_limited', detail: `This token made more than ${decision.limit} requests in the current window; retry in ${decision.retryAfterSeconds} s.` }, requestId, headers)
      }
      touchToken(principal.tokenId)

      if (!acceptedScopes.some((scope) => hasScope(principal.scopes, scope))) {
        return problemResponse(
          { code: 'insufficient_scope', detail: `This endpoint needs the ${scopeNames(options.scope, options.alsoScopes)} scope; the token has: ${principal.scopes.join(', ') || 'none'}.` },
          requestId,
          // RFC 6750's scope is a set the token needs all of; alternatives are named in the detail, the challenge names one that suffices.
          { ...headers, 'WWW-Authenticate': `${realm}, error="insufficient_scope", scope="${options.scope}"` },
        )
      }

      const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes
      // A body is read inside the large-body gate when it may be large (large-body-gate.ts).
      const idempotencyKey = request.method === 'POST' ? request.headers.get('idempotency-key') : null
      // A streamed body's handler binds the key once it has read the body (context.once); a bad
      // key is refused before the upload is read.
      const bindsLater = options.streamedBody === true
      if (bindsLater && idempotencyKey !== null) validateIdempotencyKey(idempotencyKey)
      // The handler with its parsed input; every failure becomes a problem response (runOnce
      // relies on that: a 5xx one releases the key). Not async: a cached GET's answer passes
      // through without an async frame's promise and turns (issue 50).
      const runWith = (rawBody: unknown, pathParams: RouteParams): Promise<Response> => {
        try {
          const params = parseRequestPart(options.params, pathParams, 'path')
          // The query's fields are gathered only for an operation that takes some.
          const query = options.query ? parseRequestPart(options.query, Object.fromEntries(url.searchParams), 'query') : undefined
          const body = parseRequestPart(options.body, rawBody, 'body')
          const handle = () =>
            handler({
              request,
              requestId,
              principal,
              actor: { tenant: principal.tenant, user: principal.user },
              query: query as Infer<QuerySchema>,
              body: body as Infer<BodySchema>,
              params: params as Infer<ParamsSchema>,
              cachedRead: (key, produce) => cachedRead(tenantId, key, produce, generation, cacheGeneration.read),
              once: (content, work) =>
                bindsLater && idempotencyKey !== null
                  ? runOnce(principal.tokenId, idempotencyKey, requestFingerprint(request.method, url.pathname + url.search, content), () => work().catch((error: unknown) => errorResponse(error, requestId)))
                  : work(),
            })
          // A GET changes nothing: its reads may go to the replica (lib/db/read-routing.ts decides).
          return (request.method === 'GET' ? readOnly(handle) : handle()).catch((error: unknown) => errorResponse(error, requestId))
        } catch (error) {
          return Promise.resolve(errorResponse(error, requestId))
        }
      }
      const run = (rawBody: unknown): Promise<Response> =>
        routeContext.resolvedParams ? runWith(rawBody, routeContext.resolvedParams) : routeContext.params.then((pathParams) => runWith(rawBody, pathParams), (error: unknown) => errorResponse(error, requestId))
      const dispatch = (rawBody: unknown): Promise<Response> =>
        idempotencyKey === null || bindsLater ? run(rawBody) : runOnce(principal.tokenId, idempotencyKey, requestFingerprint(request.method, url.pathname + url.search, rawBody), () => run(rawBody))
      const respond = async () => dispatch(await readJsonBody(request, maxBodyBytes))
      // A body is read inside the large-body gate when it may be large (large-body-gate.ts).
      const response = !options.body ? await dispatch(undefined) : maxBodyBytes > defaultMaxBodyBytes ? await withLargeBodySlot(respond, request.signal, `token:${principal.tokenId}`) : await respond()
      headers['X-Request-Id'] = requestId
      setResponseHeaders(response, headers)
      return response
    } catch (error) {
      return errorResponse(error, requestId, headers)
    }
  }
}

/** Logs and counts the answered request; a problem's code is read from its body off the response path. */
function observe(request: ApiRequest, route: string, url: URL, response: Response, requestId: string, arrivedAt: number, startedAt: number, principal: TokenPrincipal | undefined): void {
  const observation: ApiRequestObservation = {
    requestId,
    method: request.method,
    route,
    status: response.status,
    durationMs: performance.now() - startedAt,
    tenantId: principal?.tenant.id,
    tokenId: principal?.tokenId,
  }
  // Most answers are not problems: they are logged at once, with no closure or copy made for them.
  if (response.status < 400 || !responseHeader(response, 'content-type')?.includes('problem+json')) {
    recordObservation(observation, request, url, arrivedAt, principal)
    return
  }
  void response
    .clone()
    .json()
    .then((problem: { code?: string }) => recordObservation({ ...observation, problemCode: problem.code }, request, url, arrivedAt, principal))
    .catch(() => recordObservation(observation, request, url, arrivedAt, principal))
}

function recordObservation(observation: ApiRequestObservation, request: ApiRequest, url: URL, arrivedAt: number, principal: TokenPrincipal | undefined): void {
  observeApiRequest(observation)
  // The key's own log (Settings → API Keys → a key): only requests a key was recognised for.
  if (principal && requestLogEnabled()) {
    recordApiRequest(
      apiRequestEntry({
        id: observation.requestId,
        tenantId: principal.tenant.id,
        tokenId: principal.tokenId,
        method: request.method,
        route: observation.route,
        url,
        forwardedFor: request.headers.get('x-forwarded-for'),
        status: observation.status,
        problemCode: observation.problemCode ?? null,
        durationMs: observation.durationMs,
        arrivedAt,
      }),
    )
  }
}

/**
 * A POST with an Idempotency-Key runs once per token and key: a retry, or a twin sent at the
 * same moment, gets the first request's answer instead of repeating its effect.
 */
async function runOnce(tokenId: string, key: string, fingerprint: string, run: () => Promise<Response>): Promise<Response> {
  validateIdempotencyKey(key)
  const claim = await claimIdempotencyKey(tokenId, key, fingerprint)
  if ('replay' in claim) return replayResponse(claim.replay)
  // While the work runs its claim is renewed; the work's changes record their results on the
  // key in their own transactions (lib/events/idempotent-unit.ts), so a crash at any point
  // leaves a retry either nothing done or the committed results to answer with.
  const stopRenewing = renewIdempotencyLease(tokenId, key, claim.claimId)
  try {
    // run() turns every failure into a response (a 5xx one releases the key when completed).
    const response = await runAsIdempotentUnit({ tokenId, key, claimId: claim.claimId, recovered: claim.recovered, committed: 0 }, run)
    // Answered from what a crashed first attempt committed: it is that request's answer again,
    // and says so as a stored replay does (a 503 on a write means "outcome unknown, retry with the same key").
    if (claim.recovered.length > 0 && response.status < 500) response.headers.set('Idempotent-Replayed', 'true')
    // If the answer cannot be stored, the key must not stay claimed: a retry should run again.
    await completeIdempotencyKey(tokenId, key, claim.claimId, response).catch(async (error: unknown) => {
      await releaseIdempotencyKey(tokenId, key, claim.claimId)
      throw error
    })
    return response
  } finally {
    stopRenewing()
  }
}

function parseRequestPart(schema: z.ZodType | undefined, input: unknown, where: 'path' | 'query' | 'body'): unknown {
  if (!schema) return undefined
  return parseInput(schema, input, `The request ${where === 'body' ? 'body has' : `${where} parameters have`} invalid fields; see errors.`)
}

function bearerToken(request: ApiRequest): string | null {
  const header = request.headers.get('authorization')
  const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null
  return match ? match[1]! : null
}

/** The /v1 form of a failure; what it says is decided by describeFailure (failure.ts), shared by every door. */
export function errorResponse(error: unknown, requestId: string, headers: Record<string, string> = {}): Response {
  return failureResponse(error, requestId, headers, 'v1')
}

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
type Method = (typeof methods)[number]
export type RouteExports = Record<Method | 'HEAD' | 'OPTIONS', RouteHandler>

/**
 * The exports of a /v1 route file: the given handlers; HEAD as GET without its body; OPTIONS
 * naming the methods the route serves; and a 405 problem naming them for every other method
 * (Next would otherwise answer 405 with no body, and OPTIONS with every exported method).
 */
export function apiRoute(handlers: Partial<Record<Method, RouteHandler>>): RouteExports {
  const allowed = methods.filter((method) => handlers[method])
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ')
  const notAllowed: RouteHandler = async (request) =>
    problemResponse({ code: 'method_not_allowed', detail: `${request.method} is not allowed here; use ${allowed.join(' or ')}.` }, createId('req'), { Allow: allow })
  const get = handlers.GET
  const head: RouteHandler = get
    ? async (request, context) => {
        const response = await get(asGet(request), context)
        return new Response(null, { status: response.status, headers: response.headers })
      }
    : notAllowed
  return {
    ...(Object.fromEntries(methods.map((method) => [method, handlers[method] ?? notAllowed])) as Record<Method, RouteHandler>),
    HEAD: head,
    OPTIONS: async () => new Response(null, { status: 204, headers: { Allow: allow } }),
  }
}

/** A JSON response with the API's headers. */
export function jsonResponse(data: unknown, init: { status?: number; headers?: Record<string, string>; body?: TextPayload } = {}): Response {
  return textResponse(init.body ?? JSON.stringify(data), {
    status: init.status ?? 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...init.headers },
  })
}
