import type { oas31 } from 'zod-openapi'
import { maxInputNestingDepth } from '../../input-shape.ts'
import { recordedApiVersion } from './api-version.ts'

// The introduction of the document: the rules that hold for every operation, written once
// here rather than repeated in each operation's description. Markdown (CommonMark subset).
const description = `
The newsroom content service's REST API: articles, their editorial workflow, bulk import of wire copy, and webhook subscriptions.
Every path begins with \`/v1\`, appended to your newsroom's service address. A new version prefix comes only with breaking changes.

### Conventions

- JSON in and out, UTF-8, \`snake_case\` field names. Send \`Content-Type: application/json\` with every request body.
- Timestamps are ISO 8601 in UTC with \`Z\`, e.g. \`2026-11-20T09:30:00.000Z\`; fields that do not apply yet are \`null\`.
- Identifiers are opaque strings with a type prefix (\`art_\`, \`usr_\`, \`dep_\`, \`whk_\`, \`dlv_\`, \`evt_\`). Do not parse them.
- Unknown fields in a request body are refused with 422, so typos never pass silently. Responses may gain fields within /v1: ignore those you do not know.
- Every response carries \`X-Request-Id\`; quote it when you contact support.
- Everything belongs to the token's newsroom. Another newsroom's identifiers answer 404, exactly like identifiers that do not exist.

### What every request must be

- A body is at most 1 MiB (32 MiB for bulk import; more is a 413) of JSON nested at most ${maxInputNestingDepth} objects and arrays deep. Deeper nesting is a 422 \`nesting_too_deep\`, refused before anything else reads the body, so an \`Idempotency-Key\` sent with it is not spent.
- Text is valid Unicode. JSON lets a string escape a lone UTF-16 surrogate (\`"\\ud800"\`), but it is no character and cannot be stored: a key or value holding one is a 422 \`validation_failed\` naming its field (\`articles.3.headline\`), for the whole request, bulk imports included (a serializer that writes one has broken the whole document). Text must not contain NUL (\`\\u0000\`) either.
- \`Host\` names a host with an optional port of 1 to 65535, as every HTTP client sends it; an empty or malformed \`Host\` (\`a b\`, \`x:99999\`) is a 400 \`invalid_host\`.

### Keys and scopes

Every request carries \`Authorization: Bearer <token>\`. Tokens start with \`nrs_\`; an admin creates them in the portal under **Settings → API Keys**, choosing their scopes, and each is shown once.
Each operation states the scope it needs (**Required scope**, and \`x-required-scope\` in the document); \`admin\` grants every scope.
A missing, unknown or revoked token is a 401, a token without the scope a 403, both with an RFC 6750 \`WWW-Authenticate\` challenge.

### Rate limits

Each token may make 1,000 requests per minute on the standard plan and 10,000 on the enterprise plan, counted across all instances of the service.
The minute is a window that opens at the token's first request and resets 60 seconds later. Every response to a request with a valid token says where you stand:

- \`RateLimit-Policy: "per-token";q=1000;w=60\` and \`RateLimit: "per-token";r=998;t=42\` (IETF draft-ietf-httpapi-ratelimit-headers): quota, window, remaining, seconds to reset.
- \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, and \`X-RateLimit-Reset\` (Unix epoch seconds).

Over the limit the answer is 429 \`rate_limited\` with \`Retry-After\` in seconds. Requests without a valid token are limited per client address.

### Errors

Failures are RFC 9457 problem details, \`Content-Type: application/problem+json\`: \`type\`, \`title\`, \`status\`, \`detail\`, a stable \`code\` and the \`request_id\`.
\`type\` links to the code's entry under **Errors**. Branch on \`status\` and \`code\`; \`detail\` is written for people.

### Paging

List endpoints take \`limit\` (1 to 200, default 50) and \`offset\` (0 or more, default 0), and answer \`{ "items", "total", "limit", "offset", "next_offset", "next_cursor" }\`.
\`next_offset\` is the \`offset\` of the next page, or \`null\` on the last one. A \`limit\` or \`offset\` out of range is a 422, not silently clamped.
Every list also answers \`next_cursor\`: send it back as \`cursor\` (with the same filters, and no \`offset\`) for the next page. A cursor page is found by position, so page 1,000 costs what page 1 costs; a cursor of another list, other filters or another newsroom is a 422.

### Concurrent changes

Article responses carry an \`ETag\`. Send it back as \`If-Match\` with a PATCH or a transition, and the change is refused with 412 if someone changed the article since you read it.
`.trim()

export const apiInfo: oas31.InfoObject = {
  title: 'Newsroom Content Service API',
  version: recordedApiVersion.version,
  description,
}

/** The service that serves the document: paths resolve against its own address. */
export const apiServers: oas31.ServerObject[] = [{ url: '/', description: "Your newsroom's service address (the host that served this document)." }]
