import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectValidOpenApi31 } from '../../../tests/support/openapi-checks.ts'
import type { oas31 } from 'zod-openapi'
import type { ContentOperation } from '../operations/content-operations.ts'
import { publicArticleListSchema, publicArticleSchema } from '../../content/public-article-schema.ts'
import { buildContentOpenApiDocument, contentOpenApiDocumentPath } from './content-openapi-document.ts'

const contentDir = path.resolve(import.meta.dirname, '../../../app/content/v1')
const document = buildContentOpenApiDocument()

/** `METHOD /path` of each operation the content API's route files serve, from the declarations they carry. */
async function servedOperations(): Promise<string[]> {
  const served: string[] = []
  const walk = async (dir: string, segments: string[]) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry)
      if (statSync(full).isDirectory()) await walk(full, [...segments, entry])
      else if (entry === 'route.ts') {
        const route = '/' + segments.map((segment) => segment.replace(/^\[(.+)\]$/, '{$1}')).join('/')
        const routeModule = (await import(pathToFileURL(full).href)) as Record<string, { contentOperation?: ContentOperation } | undefined>
        const operation = routeModule.GET?.contentOperation
        if (operation) expect(`${operation.method} ${operation.path}`, full).toBe(`GET ${route}`)
        // The document's own route carries no declaration: it is public and has no key.
        if (operation || route === contentOpenApiDocumentPath) served.push(`GET ${route}`)
      }
    }
  }
  await walk(contentDir, ['content', 'v1'])
  return served.sort()
}

const operation = (route: string) => document.paths![route]!.get!

describe("the content API's OpenAPI document", () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    await expectValidOpenApi31(document)
  })

  it('documents every operation the /content/v1 route files serve, and only GETs', async () => {
    const served = await servedOperations()
    expect(served).toEqual(['GET /content/v1/articles', 'GET /content/v1/articles/{article}', `GET ${contentOpenApiDocumentPath}`])
    const documented = Object.entries(document.paths!).flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`))
    expect(documented.sort()).toEqual(served)
  })

  it('takes the content key in the query or a header, never as a bearer token, and the document itself needs none', () => {
    const schemes = document.components!.securitySchemes as Record<string, oas31.SecuritySchemeObject>
    expect(Object.values(schemes).map((scheme) => [scheme.type, scheme.in, scheme.name])).toEqual([
      ['apiKey', 'query', 'key'],
      ['apiKey', 'header', 'X-Content-Key'],
    ])
    expect(document.security).toEqual([{ contentKeyQuery: [] }, { contentKeyHeader: [] }])
    expect(operation(contentOpenApiDocumentPath).security).toEqual([])
  })

  it("lists the list's filters but not the key among its parameters, and refuses /v1's other filters", () => {
    const parameters = (operation('/content/v1/articles').parameters ?? []) as oas31.ParameterObject[]
    expect(parameters.filter((p) => p.in === 'query').map((p) => p.name).sort()).toEqual(['cursor', 'limit', 'offset', 'q', 'tag'])
    const article = (operation('/content/v1/articles/{article}').parameters ?? []) as oas31.ParameterObject[]
    expect(article.find((p) => p.in === 'path' && p.name === 'article')?.required).toBe(true)
    expect(article.some((p) => p.name === 'key')).toBe(false)
  })

  it('describes the public answers with their cache headers, and a 404 only where an address can be missing', () => {
    for (const route of ['/content/v1/articles', '/content/v1/articles/{article}']) {
      const responses = operation(route).responses as Record<string, oas31.ResponseObject>
      expect(Object.keys(responses['200']!.headers ?? {}), route).toEqual(expect.arrayContaining(['Cache-Control', 'ETag', 'Surrogate-Key', 'Cache-Tag', 'X-Request-Id']))
      expect(Object.keys(responses), route).toEqual(expect.arrayContaining(['200', '304', '401', '422', '500', '503']))
      expect(Object.keys(responses['503']!.headers ?? {}), route).toContain('Retry-After')
    }
    expect(Object.keys(operation('/content/v1/articles').responses!)).not.toContain('404')
    expect(Object.keys(operation('/content/v1/articles/{article}').responses!)).toContain('404')
  })

  it('shows no field of the /v1 record that a content key may not read', () => {
    const schemas = document.components!.schemas as Record<string, oas31.SchemaObject>
    const fields = Object.keys(schemas.PublicArticle!.properties ?? {})
    expect(fields.sort()).toEqual(['article_id', 'body', 'headline', 'images', 'lede', 'published_at', 'slug', 'tags', 'updated_at', 'url'])
    for (const hidden of ['status', 'author_id', 'version', 'department_id', 'scheduled_publish_at']) expect(fields).not.toContain(hidden)
    // The examples the document shows are answers the schemas accept.
    expect(publicArticleSchema.safeParse(publicArticleSchema.meta()?.example).success).toBe(true)
    expect(publicArticleListSchema.shape.items.element).toBe(publicArticleSchema)
  })

  it('is built once and cannot be changed by its users', () => {
    expect(buildContentOpenApiDocument()).toBe(document)
    expect(Object.isFrozen(document.paths)).toBe(true)
  })
})
