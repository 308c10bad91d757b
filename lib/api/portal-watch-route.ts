import type { ApiRequest } from './api-request.ts'
import { portalActorOf, portalSessionClaims } from '../auth/portal-request-actor.ts'
import { articleGeneration } from '../articles/article-totals.ts'
import { DomainError } from '../errors.ts'
import { textResponse } from './text-response.ts'
import { articlePathSchema } from '../articles/article-schemas.ts'
import { watchArticle } from '../articles/watch-article.ts'

/**
 * GET /api/articles/{id}/watch: what an open article page polls every few seconds
 * (components/articles/use-edit-lease.ts). The answer's ETag is the newsroom's article
 * generation; a page that sends it back in If-None-Match is answered 304 while nothing it shows
 * has changed, from the session read and one counter read (watchArticle). A change, a move or
 * a take-over advances the generation, and the next poll is a 200 with the article's version,
 * state and lease and the new ETag.
 *
 * A plain route, not tRPC: an open editor polls 20 times a minute, and tRPC's context reads the
 * session through next-auth's getServerSession (key derivation, decrypt, re-encrypt, CSRF
 * token), which cost ~30 times the watch itself. portalActorOf checks the same session
 * row the same way, so an ended session or a deactivated member is refused on its next poll.
 */
export async function serveArticleWatch(request: ApiRequest, articleId: string): Promise<Response> {
  const claims = portalSessionClaims(request)
  // The newsroom's article generation is read beside the session, not after it: the cookie names
  // the newsroom, so the two round trips (Redis, PostgreSQL) overlap and the poll waits for the
  // slower one only. Used only for a live session of that very newsroom.
  const generation = claims?.tenantId ? articleGeneration(claims.tenantId) : undefined
  const actor = claims && (await portalActorOf(claims))
  if (!actor) return refusal(401, 'unauthenticated', 'Sign in again: your session has ended.')
  const parsed = articlePathSchema.safeParse({ article_id: articleId })
  if (!parsed.success) return refusal(422, 'validation_failed', 'The article id is not valid.')
  try {
    const watch = await watchArticle(actor, parsed.data.article_id, generationOf(request.headers.get('if-none-match')), actor.tenant.id === claims.tenantId ? generation : undefined)
    const headers: Record<string, string> = { 'cache-control': 'private, no-cache', vary: 'Cookie' }
    if (watch.generation !== null) headers.etag = `"${watch.generation}"`
    // Text answers the server sends as they are (text-response.ts), not web Responses it must
    // read back through a body stream: nearly every poll is this 304.
    if (watch.unchanged) return textResponse('', { status: 304, headers })
    return textResponse(JSON.stringify(watch), { headers: { ...headers, 'content-type': 'application/json' } })
  } catch (error) {
    if (error instanceof DomainError) return refusal(error.status, error.code, error.message)
    throw error
  }
}

/** The generation an If-None-Match names (one strong or weak ETag; a list or `*` names none). */
function generationOf(header: string | null): string | undefined {
  const match = header?.trim().match(/^(?:W\/)?"([^"]{1,64})"$/)
  return match?.[1]
}

function refusal(status: number, code: string, message: string): Response {
  return textResponse(JSON.stringify({ error: { code, message } }), { status, headers: { 'cache-control': 'no-store', 'content-type': 'application/json' } })
}
