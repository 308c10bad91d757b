import { createDocument, type oas31, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi'
import { z } from 'zod'
import { getContentArticleOperation, listContentArticlesOperation, type ContentOperation } from '../operations/content-operations.ts'
import { problemCodeEntries, type ProblemCode } from '../../problem-codes.ts'
import { apiServers } from './api-overview.ts'
import { problemExample, problemSchema } from './problem-schema.ts'
import { schemaTweaks } from './schema-tweaks.ts'
import { zodFieldErrors } from '../../validation.ts'
import { deepFreeze } from './deep-freeze.ts'

export const contentOpenApiDocumentPath = '/content/v1/openapi.json'

const description = `
The public, read-only API a newsroom's own site, apps and partners read published articles from: no drafts, no workflow, no authors.
It is a different door from the \`/v1\` API (which editors' tools and integrations use, with bearer tokens and scopes) and is described by its own document.

### The content key

Every request names the newsroom with a **content key** (\`nrc_…\`), as the \`key\` query parameter or an \`X-Content-Key\` header.
An admin creates content keys in the portal under **Settings → API Keys → Content keys**. A content key only reads what the newsroom has published, so it may sit in a site's server code, its build, an app or a page's script.
When a request sends both, the query's \`key\` is the one used. A missing, unknown or revoked key is a 401; revoking a key also purges what shared caches kept for the newsroom.

### From a browser

Any origin may call the API from a page's script (CORS): every answer, failures included, carries \`Access-Control-Allow-Origin: *\` and exposes \`ETag\`, \`X-Request-Id\`, \`Retry-After\` and \`Allow\` to the script.
A request with an \`X-Content-Key\` or \`If-None-Match\` header is preceded by the browser's preflight (\`OPTIONS\`), which is answered for two hours (\`Access-Control-Max-Age: 7200\`); a key in the query needs none.
No cookie or credential is ever read: fetch's default sends none across origins, and a browser refuses the answer to a request made with \`credentials: 'include'\` (an answer open to every origin cannot accept credentials).

### Caching

Answers are public and built to sit behind a shared cache (Varnish, Fastly, Cloudflare): \`Cache-Control: public, max-age=0, s-maxage=300, stale-while-revalidate=30\` (the service's operator may set another \`s-maxage\`),
a strong \`ETag\` (send it back as \`If-None-Match\` for a 304), and the surrogate keys a purge finds the answer by (\`Surrogate-Key\`, space-separated, and \`Cache-Tag\`, comma-separated).
When an article is published, changed while published, unpublished or archived, the service purges its page and the newsroom's list pages (\`article-…\`, \`list-…\`), so a shared cache keeps answers until they change.
A key sent as a header makes the answer vary by it (\`Vary: X-Content-Key\`); a key in the query is part of the URL, and so of the cache's key.
A 404 is kept briefly (\`s-maxage=60\`) under the list key, so the publication that makes the address exist purges it. Failures of the key, the query or the service are never cached (\`no-store\`).

### Errors

As in \`/v1\`: RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` and the \`request_id\`; every response carries \`X-Request-Id\`.
`.trim()

// The key as either of the two places it may be sent: one requirement object each means "either".
const keyInQuery = 'contentKeyQuery'
const keyInHeader = 'contentKeyHeader'
const keyHelp = 'A content key (`nrc_…`) from Settings → API Keys → Content keys. It reads only what the newsroom has published.'
const securitySchemes: Record<string, oas31.SecuritySchemeObject> = {
  [keyInQuery]: { type: 'apiKey', in: 'query', name: 'key', description: `${keyHelp} Sent as \`?key=nrc_…\`, it makes the page's URL its cache key.` },
  [keyInHeader]: { type: 'apiKey', in: 'header', name: 'X-Content-Key', description: `${keyHelp} Sent as a header, answers vary by it (\`Vary: X-Content-Key\`).` },
}

const stringHeader = (text: string, example: string, required = true): oas31.HeaderObject => ({ description: text, required, schema: { type: 'string' }, example })

const requestIdHeader = stringHeader('Identifies this request; problem bodies repeat it as `request_id`.', 'req_0mhx2k1s9a1b2c3d4e5f6g7h8')

const cacheHeaders = (keys: string, tags: string): Record<string, oas31.HeaderObject> => ({
  'X-Request-Id': requestIdHeader,
  'Cache-Control': stringHeader('Public: a shared cache keeps it (`s-maxage`) until a purge of its surrogate keys; browsers revalidate each time.', 'public, max-age=0, s-maxage=300, stale-while-revalidate=30'),
  ETag: stringHeader("A strong tag of the answer's content: send it back as `If-None-Match`.", '"Pq3xT0bA9fK2mL7vW1cZ8rY4nH6sJ5d"'),
  'Surrogate-Key': stringHeader('The keys a purge finds this answer by, space-separated (Varnish, Fastly).', keys),
  'Cache-Tag': stringHeader('The same keys, comma-separated (Cloudflare).', tags),
  Vary: stringHeader('`X-Content-Key` when the key came as that header.', 'X-Content-Key', false),
})

type ProblemCase = { code: ProblemCode; name?: string; summary: string; detail: string; errors?: { field: string; message: string }[] }

function problemResponse(description: string, cacheControl: string, cases: ProblemCase[], extraHeaders: Record<string, oas31.HeaderObject> = {}): ZodOpenApiResponseObject {
  return {
    description,
    headers: { 'X-Request-Id': requestIdHeader, 'Cache-Control': stringHeader('Whether and how long a shared cache may keep this failure.', cacheControl), ...extraHeaders },
    content: {
      'application/problem+json': {
        schema: problemSchema,
        examples: Object.fromEntries(cases.map((problem) => [problem.name ?? problem.code, { summary: problem.summary, value: problemExample(problem.code, problem.detail, { errors: problem.errors }) }])),
      },
    },
  }
}

const unauthenticated = problemResponse('No valid content key: missing, unknown or revoked. Never cached.', 'no-store', [
  { code: 'unauthenticated', name: 'missing_key', summary: 'No key sent.', detail: 'Send your content key as ?key=nrc_… (or an X-Content-Key header).' },
  { code: 'unauthenticated', name: 'unknown_key', summary: 'An unknown or revoked key.', detail: 'The content key is unknown or revoked. Create one in Settings → API Keys → Content keys.' },
])

const invalidQuery = problemResponse('A query or path parameter is out of range, malformed or unknown to this API (such as `status`); `errors` names each. Never cached.', 'no-store', [
  {
    code: 'validation_failed',
    summary: 'A parameter this API does not take.',
    detail: 'The request query parameters have invalid fields; see errors.',
    // What the declaration's own validator answers (so the example cannot drift from it).
    errors: zodFieldErrors(listContentArticlesOperation.query.safeParse({ status: 'draft' }).error!),
  },
])

const serverFailure = problemResponse('An unexpected failure on our side; quote `request_id` to support. Never cached.', 'no-store', [
  { code: 'internal_error', summary: 'An unexpected failure on our side.', detail: 'Something went wrong on our side. Quote request id req_0mhx2k1s9a1b2c3d4e5f6g7h8 if you contact support.' },
])

const unavailable = problemResponse(
  'The database is unreachable for a moment; retry after `Retry-After` seconds. Never cached.',
  'no-store',
  [{ code: 'service_unavailable', summary: 'The database is unreachable.', detail: 'The service cannot reach its database right now; retry shortly.' }],
  { 'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer' }, example: 5 } },
)

function contentOperation(operation: ContentOperation, keys: string): ZodOpenApiOperationObject {
  const { key: _key, ...query } = (operation.query as z.ZodObject).shape
  const tags = keys.replaceAll(' ', ',')
  const responses: Record<string, ZodOpenApiResponseObject> = {
    200: { description: operation.success.description, headers: cacheHeaders(keys, tags), content: { 'application/json': { schema: operation.success.schema } } },
    304: { description: 'Not Modified: `If-None-Match` names the current `ETag`. No body.', headers: cacheHeaders(keys, tags) },
    401: unauthenticated,
    ...(operation.notFound && {
      404: problemResponse(operation.notFound, 'public, max-age=0, s-maxage=60', [{ code: 'not_found', summary: 'No such published article.', detail: "No published article with id 'council-to-vote' exists in this newsroom." }], {
        'Surrogate-Key': stringHeader('The newsroom and its list: a publication that makes the address exist purges this 404.', 'newsroom-ten_0mhx2k1s list-ten_0mhx2k1s'),
        'Cache-Tag': stringHeader('The same keys, comma-separated (Cloudflare).', 'newsroom-ten_0mhx2k1s,list-ten_0mhx2k1s'),
        Vary: stringHeader('`X-Content-Key` when the key came as that header.', 'X-Content-Key', false),
      }),
    }),
    422: invalidQuery,
    500: serverFailure,
    503: unavailable,
  }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: ['Published articles'],
    requestParams: {
      // The key is documented as the security schemes, not as a parameter.
      query: z.object(query),
      ...(operation.params && { path: operation.params as z.ZodObject }),
      header: ifNoneMatch,
    },
    responses,
  }
}

const ifNoneMatch = z.object({
  'If-None-Match': z.string().optional().meta({ description: 'The `ETag` of the copy you hold: if it is still current the answer is 304 with no body.', example: '"Pq3xT0bA9fK2mL7vW1cZ8rY4nH6sJ5d"' }),
})

/** GET /content/v1/openapi.json: this document, public like the /v1 one. */
const documentPaths: ZodOpenApiPathsObject = {
  [contentOpenApiDocumentPath]: {
    get: {
      operationId: 'getContentOpenApiDocument',
      summary: 'Get this OpenAPI document',
      description: 'The OpenAPI 3.1 description of the content API. No key needed; it may be cached for five minutes (revalidate with `If-None-Match`). A readable rendering is at `/docs/content-api`.',
      tags: ['OpenAPI'],
      security: [],
      responses: {
        200: {
          description: 'The document.',
          headers: { 'X-Request-Id': requestIdHeader, ETag: stringHeader('Changes whenever the document does.', '"5d41402abc4b2a76"'), 'Cache-Control': stringHeader('How long the document may be cached.', 'public, max-age=300') },
          content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.', required: ['openapi', 'info', 'paths'] } } },
        },
        304: { description: '`If-None-Match` names the current `ETag`.', headers: { 'X-Request-Id': requestIdHeader } },
      },
    },
  },
}

const operations: { operation: ContentOperation; keys: string }[] = [
  { operation: listContentArticlesOperation, keys: 'newsroom-ten_0mhx2k1s list-ten_0mhx2k1s' },
  { operation: getContentArticleOperation, keys: 'newsroom-ten_0mhx2k1s article-art_0mhx2k1s9q3v8w4t6y1z2a3b4c' },
]

let cached: oas31.OpenAPIObject | undefined

/**
 * The OpenAPI 3.1 document of the public content API, built once per process from the same
 * declarations withContentApi validates with (lib/api/operations/content-operations.ts). Frozen:
 * callers share it.
 */
export function buildContentOpenApiDocument(): oas31.OpenAPIObject {
  cached ??= deepFreeze(
    structuredClone(
      createDocument(
        {
          openapi: '3.1.0',
          info: { title: 'Newsroom Content API (public)', version: '1.0.0', description },
          servers: apiServers,
          tags: [
            { name: 'Published articles', description: "The newsroom's published articles, as its site shows them." },
            { name: 'OpenAPI', description: 'This API description, for code generators and tools.' },
          ],
          security: [{ [keyInQuery]: [] }, { [keyInHeader]: [] }],
          paths: Object.assign({}, documentPaths, ...operations.map(({ operation, keys }) => ({ [operation.path]: { get: contentOperation(operation, keys) } }))),
          components: { securitySchemes, schemas: { Problem: problemSchema } },
          'x-problem-codes': problemCodeEntries().filter((entry) => contentProblemCodes.has(entry.code)),
        },
        { override: schemaTweaks },
      ),
    ),
  )
  return cached
}

const contentProblemCodes = new Set<string>(['unauthenticated', 'not_found', 'validation_failed', 'internal_error', 'service_unavailable'])
