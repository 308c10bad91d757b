import { problemTitles } from '../problem.ts'

export type ProblemCodeEntry = {
  code: string
  status: number
  title: string
  /** The `type` URI problem bodies carry: this entry of the API reference. */
  type: string
  /** When it happens and what the client should do, in Markdown. */
  description: string
}

/** The `type` of a problem with this code, exactly as lib/api/problem.ts writes it. */
export function problemType(code: string): string {
  return `/docs/api#error-${code}`
}

// Each code's status and the advice a client developer needs: whether to fix the request,
// fetch again, or retry. The reference page and the document's x-problem-codes list read it.
const catalogue: Record<string, { status: number; description: string }> = {
  malformed_json: {
    status: 400,
    description: 'The body is not valid JSON; `detail` quotes the parser. Fix the request; retrying it unchanged fails again.',
  },
  request_aborted: {
    status: 400,
    description: 'The client closed the connection before the whole body arrived. Nobody reads this answer; retry the request in full.',
  },
  unauthenticated: {
    status: 401,
    description:
      'The `Authorization` header is missing or not `Bearer`, or the token is unknown, revoked, or belongs to a deactivated user. ' +
      'The response carries `WWW-Authenticate: Bearer realm="newsroom", error="invalid_token"`. Create a new key under Settings → API Keys. ' +
      'Repeated failures from one address are rate limited (429).',
  },
  insufficient_scope: {
    status: 403,
    description:
      'The token is valid but lacks the scope the endpoint needs; `WWW-Authenticate` names it: ' +
      '`Bearer realm="newsroom", error="insufficient_scope", scope="articles:write"`. Create a key with that scope (or `admin`). ' +
      "A token's scopes are also bounded by its owner's current role.",
  },
  forbidden: {
    status: 403,
    description:
      "The token has the scope, but its owner's role does not allow this particular action, e.g. a writer's token approving an article. " +
      'Ask an editor, or use a key owned by one.',
  },
  not_found: {
    status: 404,
    description:
      "No such resource in the token's newsroom, or no such endpoint. Another newsroom's identifier is a 404 too, never a 403, so identifiers reveal nothing.",
  },
  method_not_allowed: {
    status: 405,
    description: 'The path exists but not with this method. The `Allow` header lists the methods it supports.',
  },
  invalid_transition: {
    status: 409,
    description:
      'The workflow does not allow this move from the article\'s current state. The body adds `from_state` and `allowed_to_states`; ' +
      'see the transitions endpoint for the table.',
  },
  article_archived: {
    status: 409,
    description: 'Archived articles are read-only. Restore the article with a transition to `draft` first. The body adds `from_state`.',
  },
  concurrent_update: {
    status: 409,
    description: 'Others changed the article several times while the change was applied. Retry shortly, or send `If-Match` to be told exactly (412).',
  },
  webhook_disabled: {
    status: 409,
    description: 'The service disabled this webhook subscription after delivery failures (or a 410 Gone), so it cannot be paused. Re-enable it with `status: "enabled"` first.',
  },
  precondition_failed: {
    status: 412,
    description:
      "`If-Match` does not match the article's current `ETag`: someone changed it since you read it. GET it again, re-apply your change, and send the new `ETag`.",
  },
  too_many_items: {
    status: 413,
    description: 'A bulk import with more than 500 articles. Nothing was stored; split it into requests of at most 500.',
  },
  payload_too_large: {
    status: 413,
    description: 'The body is larger than the endpoint accepts (1 MiB; 32 MiB for bulk import). Nothing was stored.',
  },
  unsupported_media_type: {
    status: 415,
    description: 'The body is not sent as `Content-Type: application/json`.',
  },
  idempotency_key_reused: {
    status: 422,
    description: 'The Idempotency-Key was already used, within 24 hours, with a different request. Use a new key for a new request.',
  },
  idempotency_key_in_use: {
    status: 409,
    description: 'A request with this Idempotency-Key is still running. Retry shortly: once it ends, the retry receives its answer.',
  },
  validation_failed: {
    status: 422,
    description:
      'One or more fields are invalid. `errors` lists each as `{ field, message }`; `field` is a dotted path such as `tags.0`. ' +
      'Unknown fields are refused too, so typos never pass silently.',
  },
  rate_limited: {
    status: 429,
    description:
      "The token spent its budget for the current window (or, without a valid token, the client's address did). " +
      'Wait the number of seconds in `Retry-After`; the `RateLimit` headers tell you the budget before you run out.',
  },
  internal_error: {
    status: 500,
    description: 'Something failed on our side. The body never carries internal details; quote `request_id` to support. Safe to retry idempotent requests.',
  },
  service_unavailable: {
    status: 503,
    description: 'The service cannot reach its database for a moment. Retry after the seconds in `Retry-After`.',
  },
}

/** Every problem code the API can answer with, in status order. */
export function problemCodeEntries(): ProblemCodeEntry[] {
  const codes = new Set([...Object.keys(problemTitles), ...Object.keys(catalogue)])
  return [...codes]
    .map((code) => ({
      code,
      status: catalogue[code]?.status ?? 500,
      title: problemTitles[code] ?? 'Error',
      type: problemType(code),
      description: catalogue[code]?.description ?? 'See `detail`.',
    }))
    .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code))
}

/** Codes that problem.ts knows but this catalogue does not describe yet (a test keeps it empty). */
export function undocumentedProblemCodes(): string[] {
  return Object.keys(problemTitles).filter((code) => !catalogue[code])
}

export function problemStatus(code: string): number | undefined {
  return catalogue[code]?.status
}
