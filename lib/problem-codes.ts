/**
 * Every problem code the service answers with, once: its HTTP status, the title problem+json
 * carries, and the advice a client developer needs (fix the request, fetch again, or retry).
 * DomainError takes its status from here, problem+json its title, tRPC its code (through the
 * status), and the API reference its list of errors.
 */
export type ProblemCodeInfo = { title: string; status: number; advice: string; portalOnly?: true }

export const problemCatalogue = {
  malformed_json: {
    title: 'Malformed JSON',
    status: 400,
    advice: 'The body is not valid JSON; `detail` quotes the parser. Fix the request; retrying it unchanged fails again.',
  },
  malformed_multipart: {
    title: 'Malformed multipart body',
    status: 400,
    advice: 'The `multipart/form-data` body could not be parsed (a part without headers, a boundary that never closes). Let your HTTP client build the form; retrying it unchanged fails again.',
  },
  invalid_host: {
    title: 'Invalid Host header',
    status: 400,
    advice:
      'The `Host` header is missing, empty, or not a host name or address with an optional port of 1 to 65535 (e.g. `api.example.com`, `127.0.0.1:3000`, `[::1]:3000`). ' +
      'Send the host of the URL you called, as every HTTP client does by itself.',
  },
  request_aborted: {
    title: 'Request aborted',
    status: 400,
    advice: 'The client closed the connection before the whole body arrived. Nobody reads this answer; retry the request in full.',
  },
  unauthenticated: {
    title: 'Authentication required',
    status: 401,
    advice:
      'The `Authorization` header is missing or not `Bearer`, or the token is unknown, revoked, or belongs to a deactivated user; ' +
      'or the key is past its expiry (`detail` says when it expired), or the secret was replaced when the key was rolled and its overlap has lapsed (use the new secret). ' +
      'The response carries `WWW-Authenticate: Bearer realm="newsroom", error="invalid_token"`. Create a new key under Settings → API Keys. ' +
      'Repeated failures from one address are rate limited (429).',
  },
  insufficient_scope: {
    title: 'Insufficient scope',
    status: 403,
    advice:
      'The token is valid but lacks the scope the endpoint needs; `WWW-Authenticate` names it: ' +
      '`Bearer realm="newsroom", error="insufficient_scope", scope="articles:write"`. Create a key with that scope (or `admin`). ' +
      "A token's scopes are also bounded by its owner's current role.",
  },
  ip_not_allowed: {
    title: 'Address not allowed',
    status: 403,
    advice:
      "The key has an IP allowlist and the request came from an address outside it; `detail` names the address the service saw " +
      '(behind proxies, the one `TRUSTED_PROXY_HOPS` trusts). Send the request from an allowed address, or have an admin add this one ' +
      "under Settings → API Keys → the key. Repeated refusals from one address are rate limited (429).",
  },
  forbidden: {
    title: 'Forbidden',
    status: 403,
    advice:
      "The token has the scope, but its owner's role does not allow this particular action, e.g. a writer's token approving an article. " +
      'Ask an editor, or use a key owned by one.',
  },
  not_found: {
    title: 'Not found',
    status: 404,
    advice:
      "No such resource in the token's newsroom, or no such endpoint. Another newsroom's identifier is a 404 too, never a 403, so identifiers reveal nothing.",
  },
  method_not_allowed: {
    title: 'Method not allowed',
    status: 405,
    advice: 'The path exists but not with this method. The `Allow` header lists the methods it supports.',
  },
  invalid_transition: {
    title: 'Invalid transition',
    status: 409,
    advice:
      'The workflow does not allow this move from the article\'s current state. The body adds `from_state` and `allowed_to_states`; ' +
      'see the transitions endpoint for the table.',
  },
  article_archived: {
    title: 'Article is archived',
    status: 409,
    advice: 'Archived articles are read-only. Restore the article with a transition to `draft` first. The body adds `from_state`.',
  },
  concurrent_update: {
    title: 'Concurrent update',
    status: 409,
    advice: 'Others changed the article several times while the change was applied. Retry shortly, or send `If-Match` to be told exactly (412).',
  },
  article_locked: {
    title: 'Article is locked',
    status: 409,
    advice:
      'Someone else holds a live edit lease on the article (they have it open in an editor). The body names them and when the lease runs out: ' +
      '`holder_id`, `holder_name`, `since`, `expires_at`. Nothing was changed. Wait until `expires_at` (a lease lapses unless its holder\'s editor renews it), ' +
      'ask them, or send `override_lock: true` in the body to write anyway (recorded in the article\'s notes and the audit log).',
  },
  webhook_disabled: {
    title: 'Webhook is disabled',
    status: 409,
    advice: 'The service disabled this webhook subscription after delivery failures (or a 410 Gone), so it cannot be paused. Re-enable it with `status: "enabled"` first.',
  },
  webhook_limit_reached: {
    title: 'Webhook limit reached',
    status: 409,
    advice:
      'The newsroom already has as many webhook subscriptions as it may (50 unless the operator set `WEBHOOK_MAX_SUBSCRIPTIONS`; `limit` says how many). Nothing was created. Delete a subscription it no longer needs, or add event kinds to an existing one: one endpoint can receive every kind.',
  },
  precondition_failed: {
    title: 'Precondition failed',
    status: 412,
    advice:
      "`If-Match` does not match the article's current `ETag`: someone changed it since you read it. GET it again, re-apply your change, and send the new `ETag`.",
  },
  too_many_items: {
    title: 'Too many items',
    status: 413,
    advice: 'A bulk import with more than 500 articles. Nothing was stored; split it into requests of at most 500.',
  },
  payload_too_large: {
    title: 'Payload too large',
    status: 413,
    advice: 'The body is larger than the endpoint accepts (1 MiB; 32 MiB for bulk import). Nothing was stored.',
  },
  unsupported_media_type: {
    title: 'Unsupported media type',
    status: 415,
    advice: 'The body is not sent as `Content-Type: application/json`.',
  },
  nesting_too_deep: {
    title: 'Nesting too deep',
    status: 422,
    advice:
      'The JSON body nests objects and arrays more than 64 levels deep (`max_depth`). No operation takes more than a few, so this is refused before anything else, ' +
      'idempotency and validation included. Flatten the body.',
  },
  idempotency_key_reused: {
    title: 'Idempotency key reused',
    status: 422,
    advice: 'The Idempotency-Key was already used, within 24 hours, with a different request. Use a new key for a new request.',
  },
  idempotency_key_in_use: {
    title: 'Idempotency key in use',
    status: 409,
    advice: 'A request with this Idempotency-Key is still running. Retry shortly: once it ends, the retry receives its answer.',
  },
  validation_failed: {
    title: 'Validation failed',
    status: 422,
    advice:
      'One or more fields are invalid. `errors` lists each as `{ field, message }`; `field` is a dotted path such as `tags.0`. ' +
      'Unknown fields are refused too, so typos never pass silently.',
  },
  rate_limited: {
    title: 'Rate limit exceeded',
    status: 429,
    advice:
      "The token spent its budget for the current window (or, without a valid token, the client's address did). " +
      'Wait the number of seconds in `Retry-After`; the `RateLimit` headers tell you the budget before you run out.',
  },
  internal_error: {
    title: 'Internal error',
    status: 500,
    advice: 'Something failed on our side. The body never carries internal details; quote `request_id` to support. Safe to retry idempotent requests.',
  },
  service_unavailable: {
    title: 'Service unavailable',
    status: 503,
    advice: 'The service cannot reach its database for a moment. Retry after the seconds in `Retry-After`.',
  },
  write_conflict: {
    title: 'Write conflict',
    status: 503,
    advice:
      'Other requests were changing the same records at the same moment (concurrent bulk imports sharing `external_id`s, say). ' +
      'The service tried the change again a few times before answering this; nothing was stored. Retry after the seconds in `Retry-After`: the retry lands as if it had run after the others.',
  },
  // Answered only in the portal (its forms show them); the API reference does not list them.
  scope_not_grantable: {
    title: 'Scope not grantable',
    status: 403,
    advice: "A person may give a key only the scopes their own role has; an admin can create the key instead.",
    portalOnly: true,
  },
  last_admin: {
    title: 'Last admin',
    status: 409,
    advice: "The newsroom's last active admin cannot be demoted or deactivated. Make another person an admin first.",
    portalOnly: true,
  },
  user_deactivated: {
    title: 'User deactivated',
    status: 409,
    advice: 'A deactivated account keeps its last role; it cannot be changed.',
    portalOnly: true,
  },
  cannot_deactivate_self: {
    title: 'Cannot deactivate yourself',
    status: 409,
    advice: 'Ask another admin to deactivate your account.',
    portalOnly: true,
  },
  department_name_taken: {
    title: 'Department name taken',
    status: 409,
    advice: 'Department names are unique in a newsroom, whatever their case. Choose another name.',
    portalOnly: true,
  },
  department_in_use: {
    title: 'Department in use',
    status: 409,
    advice: 'Articles still belong to this department. Move them to another department first.',
    portalOnly: true,
  },
  api_key_revoked: {
    title: 'Key revoked',
    status: 409,
    advice: 'A revoked key stays as it was revoked; create a new key.',
    portalOnly: true,
  },
  api_key_expired: {
    title: 'Key expired',
    status: 409,
    advice: 'An expired key cannot be rolled; create a new key.',
    portalOnly: true,
  },
  reauthentication_required: {
    title: 'Confirm it is you',
    status: 403,
    advice: 'This act needs the password entered again when the last sign-in or confirmation is older than 10 minutes. Confirm, then retry.',
    portalOnly: true,
  },
  second_factor_setup_required: {
    title: 'Set up two-factor sign-in',
    status: 403,
    advice: 'The newsroom requires a second factor and the grace period has ended. Set one up in Settings → Security; nothing else works until then.',
    portalOnly: true,
  },
  unsupported_image_type: {
    title: 'Unsupported image type',
    status: 415,
    advice: 'The media library keeps JPEG, PNG, WebP, AVIF and GIF, recognised by their bytes (not the file name or the declared type). SVG is refused: it can carry script. Convert the image and upload it again; nothing was stored.',
  },
  image_unreadable: {
    title: 'Image unreadable',
    status: 422,
    advice: 'The file is corrupt or truncated, or has more pixels than the library accepts (`MEDIA_MAX_PIXELS`, a decompression bomb); `detail` says which. Nothing was stored.',
  },
  source_url_refused: {
    title: 'Source URL refused',
    status: 422,
    advice: 'The `source_url` could not be fetched safely: not https, a private or loopback address, too slow, too large, or not answered with 200; `detail` names why. Download it yourself and upload the bytes, or fix the URL.',
  },
  media_in_use: {
    title: 'Media in use',
    status: 409,
    advice: 'A published article shows this image; `article_ids` names them. Remove the image from those articles (or unpublish them) first.',
  },
  media_not_publishable: {
    title: 'Media not publishable',
    status: 422,
    advice: 'The article uses images that may not be published now; `media` lists each with what is missing (`alt_text`, an `embargo_until` still ahead, an `expires_at` passed). Fix the images in the media library, then publish again.',
  },
  session_not_found: {
    title: 'Session not found',
    status: 404,
    advice: 'The session has ended already, or is not yours.',
    portalOnly: true,
  },
  invalid_archive: {
    title: 'Invalid newsroom archive',
    status: 422,
    advice: 'The archive is not one this server can load as it is (cut short, altered, of another version, or colliding with data here). Nothing was imported; export it again and import the whole file.',
    portalOnly: true,
  },
} as const satisfies Record<string, ProblemCodeInfo>

export type ProblemCode = keyof typeof problemCatalogue

export type ProblemCodeEntry = {
  code: ProblemCode
  status: number
  title: string
  /** The `type` URI problem bodies carry: this entry of the API reference. */
  type: string
  /** When it happens and what the client should do, in Markdown. */
  description: string
}

/** The `type` of a problem with this code: its entry in the API reference. */
export function problemType(code: string): string {
  return `/docs/api#error-${code}`
}

export function problemStatus(code: ProblemCode): number {
  return problemCatalogue[code].status
}

/** Every problem code the API can answer with, in status order (the portal's own codes left out). */
export function problemCodeEntries(): ProblemCodeEntry[] {
  return (Object.entries(problemCatalogue) as [ProblemCode, ProblemCodeInfo][])
    .filter(([, info]) => !info.portalOnly)
    .map(([code, info]) => ({ code, status: info.status, title: info.title, type: problemType(code), description: info.advice }))
    .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code))
}
