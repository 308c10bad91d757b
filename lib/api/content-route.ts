import { setResponseHeaders } from './text-response.ts'
import { apiRoute, type RouteExports, type RouteHandler } from './with-api.ts'

// Any origin may read the public content API from a browser (CORS). It is read-only, a content
// key reads only what the newsroom published, and no cookie or credential ever counts, so `*`
// shows a page nothing a server-side fetch would not; one constant origin also keeps a single
// cached copy of each answer (no Vary: Origin).
const readableFromAnyOrigin = {
  'Access-Control-Allow-Origin': '*',
  // What a page's script needs beyond the safelisted headers: the tag to revalidate with, the
  // request id to quote in a report, when to retry a 503, and a 405's methods.
  'Access-Control-Expose-Headers': 'ETag, X-Request-Id, Retry-After, Allow',
}

// The preflight a browser sends before a request with the key as a header or an If-None-Match.
const preflight = {
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'X-Content-Key, If-None-Match',
  // Chromium keeps a preflight at most two hours; a longer figure would only be cut.
  'Access-Control-Max-Age': '7200',
}

/** The exports of a /content/v1 route file: apiRoute's, each answer readable from any origin, and OPTIONS a CORS preflight. */
export function contentRoute(handlers: { GET: RouteHandler }): RouteExports {
  const route = apiRoute(handlers)
  const exports = Object.fromEntries(Object.entries(route).map(([method, handler]) => [method, answeredToAnyOrigin(handler)])) as RouteExports
  exports.OPTIONS = answeredToAnyOrigin(async (request, context) => {
    const answer = await route.OPTIONS(request, context)
    setResponseHeaders(answer, preflight)
    return answer
  })
  return exports
}

function answeredToAnyOrigin(handler: RouteHandler): RouteHandler {
  const wrapped: RouteHandler = async (request, context) => {
    const response = await handler(request, context)
    setResponseHeaders(response, readableFromAnyOrigin)
    return response
  }
  // Keeps what the handler carries (its declaration, for the OpenAPI document's route check).
  return Object.assign(wrapped, handler)
}
