import { createDocument, type oas31, type ZodOpenApiPathsObject } from 'zod-openapi'
import { articlePaths, articleTags } from '../operations/article-operations.ts'
import { departmentPaths, departmentTags } from '../operations/department-operations.ts'
import { eventPaths, eventTags } from '../operations/event-operations.ts'
import { requestLogPaths, requestLogTags } from '../operations/request-log-operations.ts'
import { revisionPaths } from '../operations/revision-operations.ts'
import { leasePaths } from '../operations/lease-operations.ts'
import { notePaths } from '../operations/note-operations.ts'
import { mediaPaths, mediaTags } from '../operations/media-operations.ts'
import { previewLinkPaths } from '../operations/preview-link-operations.ts'
import { webhookDeliveries, webhookPaths, webhookTags } from '../operations/webhook-operations.ts'
import { apiInfo, apiServers } from './api-overview.ts'
import { problemCodeEntries } from '../../problem-codes.ts'
import { problemExample, problemSchema } from './problem-schema.ts'
import { referencePaths, referenceTags } from './reference-openapi.ts'
import { headerRefs, responseHeaders } from './response-headers.ts'
import { schemaTweaks } from './schema-tweaks.ts'
import { deepFreeze } from './deep-freeze.ts'
import { bearerSecurityScheme, securitySchemeName } from './security.ts'

/**
 * Each resource contributes its own paths, tags and (for requests the service itself sends)
 * webhooks; the order here is the reference's order.
 */
const resources: { paths: ZodOpenApiPathsObject; tags: oas31.TagObject[]; webhooks?: ZodOpenApiPathsObject }[] = [
  { paths: articlePaths, tags: articleTags },
  { paths: revisionPaths, tags: [] },
  { paths: leasePaths, tags: [] },
  { paths: notePaths, tags: [] },
  { paths: previewLinkPaths, tags: [] },
  { paths: webhookPaths, tags: webhookTags, webhooks: webhookDeliveries },
  { paths: departmentPaths, tags: departmentTags },
  { paths: mediaPaths, tags: mediaTags },
  { paths: eventPaths, tags: eventTags },
  { paths: requestLogPaths, tags: requestLogTags },
  { paths: referencePaths, tags: referenceTags },
]

let cached: oas31.OpenAPIObject | undefined

/**
 * The OpenAPI 3.1 document of /v1, built once per process from the same zod schemas that
 * validate requests. It is frozen: callers share it, so none may change it.
 */
export function buildOpenApiDocument(): oas31.OpenAPIObject {
  // Frozen as a copy, so that the objects it was built from (schema metadata, the workflow
  // table), which other modules share, stay as they are.
  cached ??= deepFreeze(structuredClone(createOpenApiDocument()))
  return cached
}

function createOpenApiDocument(): oas31.OpenAPIObject {
  return createDocument(
    {
      openapi: '3.1.0',
      info: apiInfo,
      servers: apiServers,
      tags: resources.flatMap((resource) => resource.tags),
      security: [{ [securitySchemeName]: [] }],
      paths: Object.assign({}, ...resources.map((resource) => resource.paths)),
      webhooks: Object.assign({}, ...resources.map((resource) => resource.webhooks ?? {})),
      components: {
        securitySchemes: { [securitySchemeName]: bearerSecurityScheme },
        schemas: { Problem: problemSchema },
        headers: responseHeaders,
        responses: { MethodNotAllowed: methodNotAllowedResponse },
      },
      // Every problem code, for clients that want the list and for the reference's Errors section.
      'x-problem-codes': problemCodeEntries(),
    },
    { override: schemaTweaks },
  )
}

// 405 belongs to no operation (it answers the methods a path does not have), so it is a
// shared component rather than a response of each operation.
const methodNotAllowedResponse = {
  description: 'The path does not support this method; `Allow` lists those it does. Sent for every method a path does not document.',
  headers: headerRefs(['X-Request-Id', 'Allow']),
  content: {
    'application/problem+json': {
      schema: problemSchema,
      examples: {
        method_not_allowed: {
          summary: 'DELETE /v1/articles',
          value: problemExample('method_not_allowed', 'DELETE is not allowed here; use GET or POST.'),
        },
      },
    },
  },
}

