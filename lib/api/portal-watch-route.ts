import type { ApiRequest } from './api-request.ts'
import { portalActorWith, portalSessionClaims } from '../auth/portal-request-actor.ts'
import { DomainError } from '../errors.ts'
import { textResponse } from './text-response.ts'
import { articlePathSchema } from '../articles/article-schemas.ts'
import { articleWatchStateQuery, watchAnswer, type ArticleWatchState } from '../articles/watch-article.ts'

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
  try {
    const watch = watchAnswer(signedIn.actor, parsed.data.article_id, signedIn.beside, tagOf(request.headers.get('if-none-match')))
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

/** The tag an If-None-Match names (one strong or weak ETag; a list or `*` names none). */
function tagOf(header: string | null): string | undefined {
  const match = header?.trim().match(/^(?:W\/)?"([^"]{1,64})"$/)
  return match?.[1]
}

function refusal(status: number, code: string, message: string): Response {
  return textResponse(JSON.stringify({ error: { code, message } }), { status, headers: { 'cache-control': 'no-store', 'content-type': 'application/json' } })
}
