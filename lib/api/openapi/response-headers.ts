import type { oas31 } from 'zod-openapi'

type HeaderName =
  | 'X-Request-Id'
  | 'RateLimit-Policy'
  | 'RateLimit'
  | 'X-RateLimit-Limit'
  | 'X-RateLimit-Remaining'
  | 'X-RateLimit-Reset'
  | 'Retry-After'
  | 'WWW-Authenticate'
  | 'ETag'
  | 'Location'
  | 'Allow'
  | 'Warning'

const rateLimitNote = 'Sent with every response to a request that carried a valid token, and with 429.'

/**
 * The response headers of /v1, registered once under components.headers. They are plain
 * header objects rather than zod schemas: each is a single string or integer, and what a
 * client needs is when it is sent and how to read it.
 */
export const responseHeaders: Record<HeaderName, oas31.HeaderObject> = {
  'X-Request-Id': {
    description: 'Identifies this request; problem bodies repeat it as `request_id`. Quote it when you contact support.',
    required: true,
    schema: { type: 'string' },
    example: 'req_0mhx2k1s9a1b2c3d4e5f6g7h8',
  },
  'RateLimit-Policy': {
    description: `The token's budget (draft-ietf-httpapi-ratelimit-headers): \`q\` requests per \`w\` seconds. ${rateLimitNote}`,
    schema: { type: 'string' },
    example: '"per-token";q=1000;w=60',
  },
  RateLimit: {
    description: `What is left of the budget: \`r\` requests remaining, \`t\` seconds until the oldest request counted leaves the rolling window and gives one back. ${rateLimitNote}`,
    schema: { type: 'string' },
    example: '"per-token";r=998;t=42',
  },
  'X-RateLimit-Limit': {
    description: `Requests allowed in any rolling window (1,000 in any 60 seconds on the standard plan, 10,000 on enterprise), counted across all instances. ${rateLimitNote}`,
    schema: { type: 'integer' },
    example: 1000,
  },
  'X-RateLimit-Remaining': {
    description: `Requests left in the rolling window that ends now. ${rateLimitNote}`,
    schema: { type: 'integer' },
    example: 998,
  },
  'X-RateLimit-Reset': {
    description: `When the oldest request counted leaves the rolling window (one request of budget comes back), in Unix epoch seconds. ${rateLimitNote}`,
    schema: { type: 'integer' },
    example: 1795772400,
  },
  Warning: {
    description:
      'Sent when the `body` you wrote was sanitised: names what the allow-list removed. The response carries the body as stored, which is what readers and webhooks get.',
    schema: { type: 'string' },
    example: '299 - "body sanitised: removed <script>, onerror attribute, javascript: URL in href"',
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
    example: 42,
  },
  'WWW-Authenticate': {
    description:
      'The RFC 6750 challenge: `error="invalid_token"` for a missing or bad token (401), `error="insufficient_scope"` with the `scope` needed (403).',
    required: true,
    schema: { type: 'string' },
    example: 'Bearer realm="newsroom", error="insufficient_scope", scope="articles:write"',
  },
  ETag: {
    description:
      "For an article, its version as a strong entity tag: send it back in `If-Match` to refuse a change if someone changed the article meanwhile, or in `If-None-Match` to get a 304 while it has not changed. For a list page, a tag of its content, for `If-None-Match`.",
    required: true,
    schema: { type: 'string' },
    example: '"4"',
  },
  Location: {
    description: 'Path of the created resource.',
    required: true,
    schema: { type: 'string' },
    example: '/v1/articles/art_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  },
  Allow: {
    description: 'The methods the path supports.',
    required: true,
    schema: { type: 'string' },
    example: 'GET, POST, HEAD, OPTIONS',
  },
}

export function headerRef(name: HeaderName): oas31.ReferenceObject {
  return { $ref: `#/components/headers/${name}` }
}

export function headerRefs(names: readonly HeaderName[]): Record<string, oas31.ReferenceObject> {
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]))
}

export const rateLimitHeaderNames = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const

export type { HeaderName }
