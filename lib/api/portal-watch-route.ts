import type { ApiRequest } from './api-request.ts'
import { portalActorWith, portalSessionClaims } from '../auth/portal-request-actor.ts'
import { DomainError } from '../errors.ts'
import { setResponseHeaders, textResponse } from './text-response.ts'
import { articlePathSchema } from '../articles/article-schemas.ts'
import { articleWatchStateQuery, watchAnswer, type ArticleWatchState } from '../articles/watch-article.ts'
import { watchHoldSeconds } from '../articles/lease-timing.ts'
import { articleChangeOrTimeout } from './article-watch-hub.ts'

/**
 * GET /api/articles/{id}/watch: what an open article page polls every few seconds
 * (components/articles/use-edit-lease.ts). The answer's ETag is a tag of what the page shows of
 * the article (its version, state, lease holder, last editor: watch-article.ts); a page that
 * sends it back in If-None-Match is answered 304 while none of that changed. A save, a move, a
 * take-over or a lapsed lease changes it, and the next poll is a 200 with the article's version,
 * state and lease and the new ETag.
 *
 * A plain route, not tRPC: an open editor polls 20 times a minute, and tRPC's context reads the
 * session through next-auth's getServerSession (key derivation, decrypt, re-encrypt, CSRF
 * token), which cost ~30 times the watch itself. The session row is read on every poll, so an
 * ended session, a deactivated member or an overdue second factor is refused on the next poll;
 * the article's state is read in that same statement, scoped to the session's own newsroom
 * (one round trip to PostgreSQL, none to Redis).
 */
export async function serveArticleWatch(request: ApiRequest, articleId: string): Promise<Response> {
  const claims = portalSessionClaims(request)
  const parsed = articlePathSchema.safeParse({ article_id: articleId })
  const signedIn =
    claims &&
    (await portalActorWith<ArticleWatchState>(claims, parsed.success ? { name: 'article-watch', query: articleWatchStateQuery, values: [parsed.data.article_id] } : undefined))
  if (!signedIn) return refusal(401, 'unauthenticated', 'Sign in again: your session has ended.')
  if (!parsed.success) return refusal(422, 'validation_failed', 'The article id is not valid.')
  const knownTag = tagOf(request.headers.get('if-none-match'))
  const holdSeconds = knownTag === undefined ? 0 : preferredWaitSeconds(request.headers.get('prefer'))
  try {
    const watch = watchAnswer(signedIn.actor, parsed.data.article_id, signedIn.beside, knownTag)
    if (watch.unchanged && holdSeconds > 0) {
      // Held until what the page shows changes (or the hold is up), then answered as a new poll:
      // the session is checked again, so one that ended meanwhile is refused, not told.
      await articleChangeOrTimeout(signedIn.actor.tenant.id, parsed.data.article_id, knownTag!, Date.now() + holdSeconds * 1000)
      const answer = await serveArticleWatch(withoutPrefer(request), articleId)
      setResponseHeaders(answer, { 'preference-applied': `wait=${holdSeconds}` })
      return answer
    }
    const headers: Record<string, string> = { 'cache-control': 'private, no-cache', vary: 'Cookie', etag: `"${watch.tag}"` }
    // Text answers the server sends as they are (text-response.ts), not web Responses it must
    // read back through a body stream: nearly every poll is this 304.
    if (watch.unchanged) return textResponse('', { status: 304, headers })
    return textResponse(JSON.stringify(watch), { headers: { ...headers, 'content-type': 'application/json' } })
  } catch (error) {
    if (error instanceof DomainError) return refusal(error.status, error.code, error.message)
    throw error
  }
}

/** RFC 7240's `Prefer: wait=<seconds>`, held to watchHoldSeconds; 0 when not asked. */
function preferredWaitSeconds(header: string | null): number {
  const match = header?.match(/(?:^|[,;\s])wait\s*=\s*(\d{1,4})\b/i)
  return match ? Math.min(Number(match[1]), watchHoldSeconds) : 0
}

/** The request as asked again after its hold: the same cookie and If-None-Match, no second hold. */
function withoutPrefer(request: ApiRequest): ApiRequest {
  return { method: request.method, url: request.url, body: null, headers: { get: (name) => (name.toLowerCase() === 'prefer' ? null : request.headers.get(name)) } }
}

/** The tag an If-None-Match names (one strong or weak ETag; a list or `*` names none). */
function tagOf(header: string | null): string | undefined {
  const match = header?.trim().match(/^(?:W\/)?"([^"]{1,64})"$/)
  return match?.[1]
}

function refusal(status: number, code: string, message: string): Response {
  return textResponse(JSON.stringify({ error: { code, message } }), { status, headers: { 'cache-control': 'no-store', 'content-type': 'application/json' } })
}
