import type { oas31, ZodOpenApiPathsObject } from 'zod-openapi'
import { headerRefs } from './response-headers.ts'

export const referenceTags: oas31.TagObject[] = [{ name: 'OpenAPI', description: 'This API description, for code generators and tools.' }]

export const openApiDocumentPath = '/v1/openapi.json'

/** GET /v1/openapi.json: the one public operation, so it has no security and no auth failures. */
export const referencePaths: ZodOpenApiPathsObject = {
  [openApiDocumentPath]: {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'Get this OpenAPI document',
      description:
        'The OpenAPI 3.1 description of every /v1 operation. Public: no token needed, and not rate limited. ' +
        'It may be cached for five minutes; revalidate with `If-None-Match` and the `ETag`. A readable rendering is at `/docs/api`.',
      tags: ['OpenAPI'],
      security: [],
      responses: {
        '200': {
          description: 'The document.',
          headers: {
            ...headerRefs(['X-Request-Id']),
            ETag: { description: 'Changes whenever the document does.', required: true, schema: { type: 'string' }, example: '"5d41402abc4b2a76"' },
            'Cache-Control': { description: 'How long the document may be cached.', required: true, schema: { type: 'string' }, example: 'public, max-age=300' },
          },
          content: {
            'application/json': {
              schema: { type: 'object', description: 'An OpenAPI 3.1 document.', required: ['openapi', 'info', 'paths'] },
              examples: {
                document: {
                  summary: 'The start of the document',
                  value: { openapi: '3.1.0', info: { title: 'Newsroom Content Service API', version: '1.0.0' }, paths: { '/v1/articles': {} } },
                },
              },
            },
          },
        },
        '304': {
          description: '`If-None-Match` names the current `ETag`: your copy is up to date.',
          headers: headerRefs(['X-Request-Id']),
        },
      },
    },
  },
}
