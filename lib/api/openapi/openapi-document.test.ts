import * as mediaSchemas from '../../media/media-schemas.ts'
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectValidOpenApi31 } from '../../../tests/support/openapi-checks.ts'
import { z } from 'zod'
import type { oas31 } from 'zod-openapi'
import { articleExamples } from '../operations/article-operations.ts'
import * as articleSchemas from '../../articles/article-schemas.ts'
import * as revisionSchemas from '../../articles/revision-schemas.ts'
import * as leaseSchemas from '../../articles/lease-schemas.ts'
import * as noteSchemas from '../../articles/note-schemas.ts'
import * as previewLinkSchemas from '../../articles/preview-link-schemas.ts'
import { apiStatuses, workflowTransitions } from '../../articles/article-status.ts'
import { isScope } from '../../tokens/scopes.ts'
import * as webhookOpenApi from '../operations/webhook-operations.ts'
import * as webhookSchemas from '../../webhooks/webhook-schemas.ts'
import * as requestLogSchemas from '../../request-log/request-log-schemas.ts'
import * as eventOpenApi from '../operations/event-operations.ts'
import * as eventSchemas from '../../events/event-schemas.ts'
import * as departmentSchemas from '../../departments/department-schemas.ts'
import { problemResponse } from '../problem.ts'
import { buildOpenApiDocument } from './openapi-document.ts'
import { problemCatalogue, problemStatus, problemType, type ProblemCode } from '../../problem-codes.ts'
import * as problemSchemas from './problem-schema.ts'

type Operation = oas31.OperationObject & { 'x-required-scope'?: string }

const appDir = path.resolve(import.meta.dirname, '../../../app')
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const
const document = buildOpenApiDocument()
const publicOperations = new Set(['GET /v1/openapi.json', 'GET /v1/preview/{token}'])

/** Every operation of the document as `METHOD /path` (or, for the service's own requests, `METHOD webhook`). */
function documentedOperations(paths: oas31.PathsObject | undefined = document.paths): Map<string, Operation> {
  const operations = new Map<string, Operation>()
  for (const [route, item] of Object.entries(paths ?? {})) {
    for (const method of methods) {
      const operation = item[method]
      if (operation) operations.set(`${method.toUpperCase()} ${route}`, operation as Operation)
    }
  }
  return operations
}

type ServedHandler = { operation?: { method: string; path: string } }

/**
 * The operations the app serves under /v1, from the route modules themselves: each method a
 * route file serves is a withApi handler carrying its declaration, whose method and path must
 * be the file's own (the public document route carries none and is listed as public). The
 * catch-all 404 route serves no operation; the other exported methods only answer 405.
 */
async function servedOperations(): Promise<string[]> {
  const operations: string[] = []
  const routeFiles: { file: string; route: string }[] = []
  const walk = (dir: string, segments: string[]) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry)
      if (statSync(full).isDirectory()) walk(full, [...segments, entry])
      else if (entry === 'route.ts' && !segments.some((segment) => segment.startsWith('[...'))) {
        routeFiles.push({ file: full, route: '/' + segments.map((segment) => segment.replace(/^\[(.+)\]$/, '{$1}')).join('/') })
      }
    }
  }
  walk(path.join(appDir, 'v1'), ['v1'])
  for (const { file, route } of routeFiles) {
    const routeModule = (await import(pathToFileURL(file).href)) as Record<string, ServedHandler | undefined>
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const operation = routeModule[method]?.operation
      if (operation) {
        expect(`${operation.method} ${operation.path}`, `${file} ${method}`).toBe(`${method} ${route}`)
        operations.push(`${method} ${route}`)
      } else if (publicOperations.has(`${method} ${route}`)) {
        expect(routeModule[method], `${file} ${method}`).toBeTypeOf('function')
        operations.push(`${method} ${route}`)
      }
    }
  }
  return operations.sort()
}

/** The zod schemas registered under a component id, to check examples with the validators themselves. */
function schemasById(...modules: Record<string, unknown>[]): Map<string, z.ZodType> {
  const byId = new Map<string, z.ZodType>()
  for (const source of modules) {
    for (const value of Object.values(source)) {
      const id = value instanceof z.ZodType ? value.meta()?.id : undefined
      if (typeof id === 'string' && value instanceof z.ZodType) byId.set(id, value)
    }
  }
  return byId
}

function examplesOf(media: oas31.MediaTypeObject | undefined): unknown[] {
  if (!media) return []
  const named = Object.values(media.examples ?? {}).map((example) => (example as oas31.ExampleObject).value)
  return media.example === undefined ? named : [media.example, ...named]
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    await expectValidOpenApi31(document)
  })

  it('is built once and cannot be changed by its users', () => {
    expect(buildOpenApiDocument()).toBe(document)
    expect(Object.isFrozen(document.paths)).toBe(true)
  })

  it('documents every operation the /v1 route files serve, and nothing they do not', async () => {
    const served = await servedOperations()
    expect(served).toContain('GET /v1/articles')
    expect(served).toContain('POST /v1/articles/{article_id}/transitions')
    expect(served).not.toContain('DELETE /v1/articles')
    expect([...documentedOperations().keys()].sort()).toEqual(served)
    // It imports every /v1 route module (and through them most of lib/): 10 s at load 15 on 2
    // cores, past the 30 s default when the machine is busier. The bound only stops a hang.
  }, 120_000)

  it('gives every operation an id, summary, description, known tags and documented path parameters', () => {
    const tags = new Set((document.tags ?? []).map((tag) => tag.name))
    const ids = new Set<string>()
    for (const [name, operation] of documentedOperations()) {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/)
      expect(ids.has(operation.operationId!), `${name}: duplicate operationId`).toBe(false)
      ids.add(operation.operationId!)
      expect(operation.summary, name).toBeTruthy()
      expect(operation.description?.length ?? 0, name).toBeGreaterThan(40)
      expect(operation.tags?.length, name).toBeGreaterThan(0)
      for (const tag of operation.tags ?? []) expect(tags.has(tag), `${name}: tag ${tag}`).toBe(true)

      const pathParams = [...name.matchAll(/\{([^}]+)\}/g)].map((match) => match[1])
      const declared = (operation.parameters ?? []) as oas31.ParameterObject[]
      for (const param of pathParams) {
        expect(declared.find((p) => p.in === 'path' && p.name === param)?.required, `${name}: path parameter ${param}`).toBe(true)
      }
    }
  })

  it('gives every operation a success response with an example', () => {
    for (const [name, operation] of documentedOperations()) {
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'))
      expect(success.length, name).toBeGreaterThan(0)
      for (const [status, response] of success as [string, oas31.ResponseObject][]) {
        if (status === '204') continue
        // A download (a media original) is the file itself, not JSON.
        if (!response.content?.['application/json'] && response.content?.['image/*']) continue
        expect(examplesOf(response.content?.['application/json']).length, `${name} ${status}`).toBeGreaterThan(0)
        expect(response.headers?.['X-Request-Id'], `${name} ${status}`).toBeDefined()
      }
    }
  })

  it('gives every authenticated operation its scope, security and the 401, 403, 429, 500 and 503 answers', () => {
    for (const [name, operation] of documentedOperations()) {
      if (publicOperations.has(name)) {
        expect(operation.security, name).toEqual([])
        continue
      }
      const scope = operation['x-required-scope']
      expect(scope && isScope(scope), `${name}: x-required-scope`).toBe(true)
      expect(operation.description, name).toContain(`\`${scope}\``)
      expect(operation.security, name).toContainEqual({ bearerAuth: [scope] })
      expect(operation.security, name).toContainEqual({ bearerAuth: ['admin'] })
      for (const status of ['401', '403', '429', '500', '503']) expect(operation.responses?.[status], `${name} ${status}`).toBeDefined()
      const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2'))![1] as oas31.ResponseObject
      for (const header of ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        expect(success.headers?.[header], `${name}: ${header}`).toBeDefined()
      }
      const tooMany = operation.responses?.['429'] as oas31.ResponseObject
      expect(tooMany.headers?.['Retry-After'], name).toBeDefined()
      const unauthenticated = operation.responses?.['401'] as oas31.ResponseObject
      expect(unauthenticated.headers?.['WWW-Authenticate'], name).toBeDefined()
    }
  })

  it('documents every failure as a problem with examples whose code fits the status', () => {
    for (const [name, operation] of documentedOperations()) {
      for (const [status, value] of Object.entries(operation.responses ?? {})) {
        if (!/^[45]/.test(status)) continue
        const media = (value as oas31.ResponseObject).content?.['application/problem+json']
        expect(media?.schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' })
        const examples = examplesOf(media) as { status: number; code: string; type: string }[]
        expect(examples.length, `${name} ${status}`).toBeGreaterThan(0)
        for (const example of examples) {
          expect(example.status, `${name} ${status}`).toBe(Number(status))
          expect(problemStatus(example.code as ProblemCode), `${name} ${status} ${example.code}`).toBe(Number(status))
          expect(example.type).toBe(problemType(example.code))
        }
      }
    }
    const transition = documentedOperations().get('POST /v1/articles/{article_id}/transitions')!
    const conflict = examplesOf((transition.responses?.['409'] as oas31.ResponseObject).content?.['application/problem+json']) as Record<string, unknown>[]
    expect(conflict.find((example) => example.code === 'invalid_transition')).toMatchObject({ from_state: 'draft', allowed_to_states: workflowTransitions.draft })
  })

  it('checks every example of a documented schema with the zod schema behind it', () => {
    const zodById = schemasById(mediaSchemas, articleSchemas, revisionSchemas, leaseSchemas, noteSchemas, previewLinkSchemas, problemSchemas, webhookSchemas, webhookOpenApi, requestLogSchemas, eventOpenApi, eventSchemas, departmentSchemas)
    let checked = 0
    for (const [name, operation] of [...documentedOperations(), ...documentedOperations(document.webhooks)]) {
      const body = operation.requestBody as oas31.RequestBodyObject | undefined
      const media = [
        ...Object.values(body?.content ?? {}),
        ...Object.values(operation.responses ?? {}).flatMap((response) => Object.values((response as oas31.ResponseObject).content ?? {})),
      ]
      for (const { schema, ...rest } of media) {
        const ref = (schema as oas31.ReferenceObject | undefined)?.$ref
        if (!ref) continue
        const zodSchema = zodById.get(ref.split('/').pop()!)
        expect(zodSchema, `${name}: no zod schema for ${ref}`).toBeDefined()
        for (const example of examplesOf(rest)) {
          const parsed = zodSchema!.safeParse(example)
          expect(parsed.success ? [] : parsed.error.issues, `${name}: example of ${ref}`).toEqual([])
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(70)
    for (const article of Object.values(articleExamples)) expect(articleSchemas.articleSchema.parse(article)).toEqual(article)
  })

  it('describes every problem code the API uses, and its examples look like real problem bodies', async () => {
    const listed = (document['x-problem-codes'] as { code: string }[]).map((entry) => entry.code).sort()
    const apiCodes = Object.entries(problemCatalogue).filter(([, info]) => !('portalOnly' in info)).map(([code]) => code)
    expect(listed).toEqual(apiCodes.sort())

    const real = await problemResponse({ code: 'invalid_transition', detail: 'No.', extra: { from_state: 'draft' } }, problemSchemas.exampleRequestId).json()
    expect(problemSchemas.problemExample('invalid_transition', 'No.', { extra: { from_state: 'draft' } })).toEqual(real)
    expect(problemSchemas.problemSchema.safeParse(real).success).toBe(true)
  })

  it('explains the workflow, ordering and bulk semantics where developers look for them', () => {
    const operations = documentedOperations()
    const transitions = operations.get('POST /v1/articles/{article_id}/transitions')!.description!
    for (const from of apiStatuses) {
      expect(transitions).toContain(`| \`${from}\` | ${workflowTransitions[from].map((to) => `\`${to}\``).join(', ')} |`)
    }
    expect(transitions).toContain('scheduled_publish_at')
    expect(operations.get('GET /v1/articles')!.description).toMatch(/unpublished|never published/)
    expect(operations.get('POST /v1/articles/bulk')!.description).toContain('external_id')
    const patch = document.components?.schemas?.UpdateArticle as oas31.SchemaObject
    expect(patch.properties?.status).toBeUndefined()
    expect(patch.description).toContain('`status`')
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(JSON.stringify(document.components?.securitySchemes?.bearerAuth)).toContain('Settings → API Keys')
  })
})
