import type { ApiRequest } from '../api/api-request.ts'
import { problemResponse } from '../api/problem.ts'
import { createId } from '../ids.ts'
import type { RouteModule, V1Route } from './v1-route-modules.ts'

type RouteParams = Record<string, string | string[]>

/**
 * Routes a /v1 request to its route module as Next's router would — same handlers, same params,
 * static segments before dynamic ones before catch-alls — without the App Router's per-request
 * machinery, which costs more than the API's own work (measured in bench/results). The modules
 * come from the production build or from the source files (v1-route-modules.ts).
 */
export function createV1Router(loaded: V1Route[]): (request: ApiRequest, url: URL) => Promise<Response> {
  const routes = [...loaded].sort(bySpecificity)
  // The routes a path of each length could match, in the same order: a request is tried only
  // against those (10 of the 32 routes for /v1/articles/{id}), where walking every route
  // was 2 % of a cached GET's CPU (issue 50's profile). Longer paths can only match catch-alls.
  const longest = Math.max(0, ...routes.map((route) => route.segments.length))
  const byLength = Array.from({ length: longest + 1 }, (_, length) => routes.filter((route) => couldMatchLength(route.segments, length)))
  const catchAlls = routes.filter((route) => isCatchAll(route.segments))
  // Neither this nor callRoute is async: each would add a promise, and turns of the microtask
  // queue, to every request for nothing (they only pass the handler's promise on).
  return (request, url) => {
    const parts = url.pathname.split('/').filter(Boolean)
    for (const route of byLength[parts.length] ?? catchAlls) {
      const params = match(route.segments, parts)
      if (params) return callRoute(route.module, request, params)
    }
    // Unreachable while app/v1/[...path] exists; kept so a removed catch-all cannot become a crash.
    return Promise.resolve(problemResponse({ code: 'not_found', detail: 'No such endpoint.' }, createId('req')))
  }
}

function callRoute(module: RouteModule, request: ApiRequest, params: RouteParams): Promise<Response> {
  // A module that exports GET alone (the operational routes) answers HEAD with it, as Next
  // would; sendWebResponse leaves the body out.
  const handler = module[request.method] ?? (request.method === 'HEAD' ? module.GET : undefined)
  // `resolvedParams`: the same params for a handler that can take them without awaiting (withApi).
  if (handler) return handler(request, { params: Promise.resolve(params), resolvedParams: params })
  // /v1's route files export every method the API knows (apiRoute); a module that exports some
  // (the operational routes) gets what Next gave it: OPTIONS naming what it serves, and a 405
  // for the rest, which names them too (RFC 9110).
  const allow = allowedMethods(module)
  if (request.method === 'OPTIONS') return Promise.resolve(new Response(null, { status: 204, headers: { Allow: allow } }))
  return Promise.resolve(problemResponse({ code: 'method_not_allowed', detail: `${request.method} is not supported here; use ${allow.replace(/, ([^,]*)$/, ' or $1')}.` }, createId('req'), { Allow: allow }))
}

const knownMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

function allowedMethods(module: RouteModule): string {
  return [...knownMethods.filter((method) => module[method] || (method === 'HEAD' && module.GET)), 'OPTIONS'].join(', ')
}

// Static segments beat dynamic ones, which beat catch-alls, as in Next's router.
function bySpecificity(a: V1Route, b: V1Route): number {
  const ra = a.segments.map(segmentRank)
  const rb = b.segments.map(segmentRank)
  for (let i = 0; i < Math.min(ra.length, rb.length); i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!
  return rb.length - ra.length
}

function segmentRank(segment: string): number {
  return segment.startsWith('[...') ? 2 : segment.startsWith('[') ? 1 : 0
}

function isCatchAll(segments: string[]): boolean {
  return segments.length > 0 && segments[segments.length - 1]!.startsWith('[...')
}

function couldMatchLength(segments: string[], length: number): boolean {
  return isCatchAll(segments) ? length >= segments.length : length === segments.length
}

// Static segments and the length are compared before anything is decoded or allocated: a
// request is tried against every route until one matches, and decoding each candidate's
// dynamic segments was a few per cent of a cached GET's CPU (issue 50's profile).
function match(segments: string[], parts: string[]): RouteParams | null {
  if (!couldMatchLength(segments, parts.length)) return null
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (segment.charCodeAt(0) !== 91 /* [ */ && segment !== parts[i]) return null
  }
  const params: RouteParams = {}
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (segment.startsWith('[...')) params[segment.slice(4, -1)] = parts.slice(i).map(safeDecode)
    else if (segment.startsWith('[')) params[segment.slice(1, -1)] = safeDecode(parts[i]!)
  }
  return params
}

// Next hands a route the raw segment when it is not valid percent-encoding.
function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
