import { z } from 'zod'
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiParameters, ZodOpenApiPathsObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi'
import { defaultMaxBodyBytes } from '../body-limits.ts'
import type { FieldError } from '../../errors.ts'
import { maxInputNestingDepth, nestingTooDeep } from '../../input-shape.ts'
import { problemStatus, type ProblemCode } from '../../problem-codes.ts'
import { scopeNames, type Scope } from '../../tokens/scopes.ts'
import { problemExample, problemSchema } from './problem-schema.ts'
import { headerRefs, rateLimitHeaderNames, type HeaderName } from './response-headers.ts'
import { scopeRequirement } from './security.ts'

/** One way an operation can fail, as documented: when it happens and an example body. */
export type ProblemCase = {
  /** Its status is the catalogue's (lib/problem-codes.ts). */
  code: ProblemCode
  /** One sentence for the response's description. */
  when: string
  /** The example's `detail`. */
  detail: string
  /** The example's key, when one status has several examples of one code. */
  name?: string
  /** The example's summary, when it differs from `when`. */
  summary?: string
  errors?: FieldError[]
  extra?: Record<string, unknown>
}

type Examples = Record<string, oas31.ExampleObject>

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * One /v1 operation, declared once: what withApi enforces (scope, the schemas it validates
 * with, the body limit) and what the reference documents (path, method, texts, examples,
 * failures) are the same object, so they cannot disagree. Route files serve a declaration
 * (`withApi(listArticlesOperation, handler)`); the OpenAPI document lists the declarations.
 */
export type ApiOperationSpec = {
  method: HttpMethod
  /** As the reference writes it: `/v1/articles/{article_id}`. */
  path: string
  operationId: string
  summary: string
  /** Markdown. The required scope is added in front. */
  description: string
  tags: string[]
  scope: Scope
  /**
   * Other scopes that grant the operation too (any one suffices): GET /v1/departments is read
   * with articles:read or with webhooks:manage, whose filters take department ids.
   */
  alsoScopes?: Scope[]
  /** What withApi validates the path parameters, query and body with. */
  params?: z.ZodType
  query?: z.ZodType
  body?: z.ZodType
  /** Bodies larger than this are refused with 413 before they are read whole (default 1 MiB). */
  maxBodyBytes?: number
  /**
   * The handler reads the body itself (a streamed multipart upload), so withApi cannot bind an
   * Idempotency-Key to it: the handler does, once the body is read, through its context's `once`.
   */
  streamedBody?: true
  /** How the parameters read in the reference (descriptions, examples), where the validators alone say too little. */
  requestParams?: ZodOpenApiParameters
  requestBody?: {
    /** The documented schema, when it should read differently from `body` (e.g. a bulk item's fields). */
    schema?: z.ZodType
    description?: string
    examples: Examples
    /** The body may be left out (it reads as `{}`): its fields are all optional. */
    optional?: boolean
    /** The operation also takes `multipart/form-data` (an upload), of this shape. */
    multipart?: z.ZodType
  }
  success: {
    status: 200 | 201 | 204
    description: string
    schema?: z.ZodType
    examples?: Examples
    headers?: HeaderName[]
    /** A download: the body is a file of this media type (e.g. `image/*`), not JSON. */
    file?: string
  }
  /** The operation's own failures; authentication, rate limit and server failures are added. */
  problems?: ProblemCase[]
  /** A GET that answers If-None-Match with 304 Not Modified. */
  conditional?: boolean
}

/** A declaration, typed as written, so withApi infers the parsed params, query and body from its schemas. */
export function declareOperation<const Spec extends ApiOperationSpec>(spec: Spec): Spec {
  return spec
}

/** The reference's paths for these operations. */
export function operationPaths(operations: readonly ApiOperationSpec[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {}
  for (const operation of operations) {
    paths[operation.path] = { ...paths[operation.path], [operation.method.toLowerCase()]: apiOperation(operation) }
  }
  return paths
}

const mebibyte = 1024 * 1024

/**
 * A /v1 operation as the wrapper in lib/api/with-api.ts serves it: bearer token and scope,
 * rate-limit headers, and problem+json failures, so each resource module only states what
 * is particular to it.
 */
export function apiOperation(spec: ApiOperationSpec): ZodOpenApiOperationObject {
  // Every POST under /v1 honours Idempotency-Key (lib/api/with-api.ts).
  const idempotent = spec.method === 'POST'
  const bodySchema = spec.requestBody?.schema ?? spec.body
  const problems = [
    ...authenticationProblems(scopeNames(spec.scope, spec.alsoScopes)),
    ...(bodySchema ? bodyProblems(spec.maxBodyBytes ?? defaultMaxBodyBytes) : []),
    ...(spec.problems ?? []),
    ...(idempotent ? idempotencyProblems : []),
    ...serverProblems,
  ]
  const requestParams = idempotent
    ? { ...spec.requestParams, header: idempotencyKeyHeader }
    : spec.conditional
      ? { ...spec.requestParams, header: ifNoneMatchHeader }
      : spec.requestParams
  const responses: Record<string, ZodOpenApiResponseObject> = { [spec.success.status]: successResponse(spec.success) }
  if (spec.conditional) {
    responses[304] = {
      description: 'Not Modified: the `If-None-Match` sent names the current `ETag`, so the copy you hold is current. No body. It still needs the scope and counts against the rate limit.',
      headers: headerRefs(['X-Request-Id', 'ETag', ...rateLimitHeaderNames]),
    }
  }
  for (const status of [...new Set(problems.map((problem) => problemStatus(problem.code)))].sort((a, b) => a - b)) {
    responses[status] = problemResponse(status, problems.filter((problem) => problemStatus(problem.code) === status))
  }

  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: `**Required scope:** ${[spec.scope, ...(spec.alsoScopes ?? [])].map((scope) => `\`${scope}\``).join(' or ')}${spec.scope === 'admin' ? '' : ' (or `admin`)'}.\n\n${spec.description}`,
    tags: spec.tags,
    ...scopeRequirement(spec.scope, spec.alsoScopes),
    ...(requestParams && { requestParams }),
    ...(bodySchema && {
      requestBody: {
        required: !spec.requestBody?.optional,
        ...(spec.requestBody?.description && { description: spec.requestBody.description }),
        content: {
          ...(spec.requestBody?.multipart && { 'multipart/form-data': { schema: spec.requestBody.multipart } }),
          'application/json': { schema: bodySchema, ...(spec.requestBody && { examples: spec.requestBody.examples }) },
        },
      },
    }),
    responses: responses as ZodOpenApiResponsesObject,
  }
}

function successResponse(success: ApiOperationSpec['success']): ZodOpenApiResponseObject {
  return {
    description: success.description,
    headers: headerRefs(['X-Request-Id', ...rateLimitHeaderNames, ...(success.headers ?? [])]),
    ...(success.schema && {
      content: { 'application/json': { schema: success.schema, ...(success.examples && { examples: success.examples }) } },
    }),
    ...(success.file && { content: { [success.file]: { schema: { type: 'string', format: 'binary' } } } }),
  }
}

function problemResponse(status: number, cases: ProblemCase[]): ZodOpenApiResponseObject {
  const headers: HeaderName[] = ['X-Request-Id']
  if (status === 401 || status === 403) headers.push('WWW-Authenticate')
  if (status === 429 || status === 503) headers.push('Retry-After')
  if (status !== 401) headers.push(...rateLimitHeaderNames)

  const examples: Examples = {}
  for (const problem of cases) {
    examples[problem.name ?? problem.code] = {
      summary: problem.summary ?? problem.when,
      value: problemExample(problem.code, problem.detail, { errors: problem.errors, extra: problem.extra }),
    }
  }
  return {
    description: [...new Set(cases.map((problem) => problem.when))].join(' '),
    headers: headerRefs(headers),
    content: { 'application/problem+json': { schema: problemSchema, examples } },
  }
}

const noValidToken =
  "No valid token: the `Authorization: Bearer` header is missing, or the token is unknown, revoked, past its expiry, a secret replaced by a roll whose overlap has lapsed, or its owner's account is deactivated."

function authenticationProblems(scope: string): ProblemCase[] {
  return [
    {
      code: 'unauthenticated',
      name: 'missing_token',
      when: noValidToken,
      summary: 'No Authorization header.',
      detail: 'Send your API key as Authorization: Bearer <token>.',
    },
    {
      code: 'unauthenticated',
      name: 'invalid_token',
      when: noValidToken,
      summary: 'An unknown or revoked token.',
      detail: 'The bearer token is unknown, revoked, or belongs to a deactivated user. Create a new key in Settings → API Keys.',
    },
    {
      code: 'unauthenticated',
      name: 'expired_token',
      when: noValidToken,
      summary: 'A key past its expiry.',
      detail: 'This API key expired at 2026-11-20T09:30:00.000Z. Create a new key in Settings → API Keys (and choose a later expiry, or none).',
    },
    {
      code: 'ip_not_allowed',
      when: "The key has an IP allowlist and the request came from an address outside it.",
      detail: "Requests from 198.51.100.23 may not use this API key: the key is limited to other addresses. Send it from an allowed address, or have an admin of the newsroom add this one to the key's allowlist.",
    },
    {
      code: 'insufficient_scope',
      when: `The token lacks the \`${scope}\` scope.`,
      detail: `This endpoint needs the ${scope} scope; the token has: articles:read.`,
    },
    {
      code: 'rate_limited',
      when: "The request budget for the current window is spent (the token's, or the client address's for requests without a valid token); wait `Retry-After` seconds.",
      detail: 'This token made more than 1000 requests in the current window; retry in 42 s.',
    },
  ]
}

function bodyProblems(maxBytes: number): ProblemCase[] {
  const size = maxBytes % mebibyte === 0 ? `${maxBytes / mebibyte} MiB` : `${maxBytes.toLocaleString('en')} bytes`
  return [
    {
      code: 'malformed_json',
      when: 'The body is not valid JSON.',
      detail: "The body is not valid JSON: Expected ',' or '}' after property value in JSON at position 27.",
    },
    {
      code: 'payload_too_large',
      when: `The body is larger than ${size}; nothing was stored.`,
      detail: `The body is larger than this endpoint accepts (${maxBytes.toLocaleString('en')} bytes).`,
    },
    {
      code: 'unsupported_media_type',
      when: 'The body is not sent as `application/json`.',
      detail: 'Send the body as JSON with Content-Type: application/json (got application/x-www-form-urlencoded).',
    },
    {
      code: 'nesting_too_deep',
      when: `The body nests objects and arrays more than ${maxInputNestingDepth} levels deep; refused before anything else reads it, the Idempotency-Key included.`,
      detail: nestingTooDeep().message,
      extra: nestingTooDeep().extra,
    },
  ]
}

const ifNoneMatchHeader = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({ description: 'The `ETag` of the copy you hold: if it is still current the answer is 304 with no body.', example: '"4"' }),
})

const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Makes a retry safe: the same key from the same token within 24 hours returns the first answer again (with `Idempotent-Replayed: true`) instead of repeating the effect. ' +
        'A request sent while the first is still running waits for its answer. The same key with a different request is refused with 422. Use a new UUID per logical request.',
      example: '5f1c2a9e-8a4e-4c4b-9b8e-2f0d6a1c3e77',
    }),
})

const idempotencyProblems: ProblemCase[] = [
  {
    code: 'idempotency_key_in_use',
    when: 'A request with this Idempotency-Key is still running after 10 seconds; retry to get its answer.',
    detail: 'A request with this Idempotency-Key is still being processed; retry in a moment to get its answer.',
  },
  {
    code: 'idempotency_key_reused',
    when: 'The Idempotency-Key was already used with a different request.',
    detail: 'This Idempotency-Key was used with a different request; use a new key for a new request.',
  },
]

const serverProblems: ProblemCase[] = [
  {
    code: 'internal_error',
    when: 'An unexpected failure on our side; quote `request_id` to support.',
    detail: 'Something went wrong on our side. Quote request id req_0mhx2k1s9a1b2c3d4e5f6g7h8 if you contact support.',
  },
  {
    code: 'service_unavailable',
    when: 'The database is unreachable for a moment; retry after `Retry-After` seconds.',
    detail: 'The service cannot reach its database right now; retry shortly.',
  },
]
