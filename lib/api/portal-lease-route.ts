import { z } from 'zod'
import type { ApiRequest } from './api-request.ts'
import { portalRequestActor } from '../auth/portal-request-actor.ts'
import { DomainError } from '../errors.ts'
import { textResponse } from './text-response.ts'
import { isPortalRequest } from '../security/same-origin.ts'
import { articlePathSchema } from '../articles/article-schemas.ts'
import { askForEditLease } from '../articles/edit-lease.ts'
import { leaseSessionSchema } from '../articles/lease-schemas.ts'

const askSchema = z.strictObject({ take_over: z.boolean().optional(), session: leaseSessionSchema.optional() })

/**
 * POST /api/articles/{id}/lease: the article page's ask for its edit lease (the first edit, the
 * heartbeat every 30 s while it has unsaved edits, a take-over), answered as askForEditLease
 * answers it. `session` names the page (its editing session), whose claim it is. A plain route beside the watch poll (portal-watch-route.ts) for the same reason:
 * an open editor's heartbeat through tRPC paid next-auth's whole session action, ~30 times
 * the claim itself. portalRequestActor refuses an ended session or a deactivated member on
 * the next request; the portal header and Origin check (isPortalRequest) keep other sites out,
 * as they do for tRPC's mutations.
 */
export async function serveEditLeaseAsk(request: ApiRequest, articleId: string): Promise<Response> {
  if (!isPortalRequest(request)) return refusal(403, 'forbidden', 'Cross-site request refused.')
  const actor = await portalRequestActor(request)
  if (!actor) return refusal(401, 'unauthenticated', 'Sign in again: your session has ended.')
  const path = articlePathSchema.safeParse({ article_id: articleId })
  let body: unknown
  try {
    const text = await new Response(request.body).text()
    body = text ? JSON.parse(text) : {}
  } catch {
    return refusal(400, 'malformed_json', 'The request body is not valid JSON.')
  }
  const ask = askSchema.safeParse(body)
  if (!path.success || !ask.success) return refusal(422, 'validation_failed', 'The article id, take_over or session is not valid.')
  try {
    const answer = await askForEditLease(actor, path.data.article_id, { takeOver: ask.data.take_over, session: ask.data.session })
    return textResponse(JSON.stringify(answer), { headers: { 'cache-control': 'no-store', 'content-type': 'application/json' } })
  } catch (error) {
    if (error instanceof DomainError) return refusal(error.status, error.code, error.message)
    throw error
  }
}

function refusal(status: number, code: string, message: string): Response {
  return textResponse(JSON.stringify({ error: { code, message } }), { status, headers: { 'cache-control': 'no-store', 'content-type': 'application/json' } })
}
