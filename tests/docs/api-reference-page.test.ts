import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import ApiReferencePage from '../../app/docs/api/page.tsx'
import ContentApiReferencePage from '../../app/docs/content-api/page.tsx'
import { buildContentOpenApiDocument } from '../../lib/api/openapi/content-openapi-document.ts'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'
import { problemCodeEntries } from '../../lib/problem-codes.ts'
import { inPageLinks } from '../support/openapi-checks.ts'

const html = renderToStaticMarkup(createElement(ApiReferencePage))
const document = buildOpenApiDocument()

describe('the API reference page', () => {
  it('has an entry for every problem code, where problem types point', () => {
    for (const { code, type } of problemCodeEntries()) {
      expect(type).toBe(`/docs/api#error-${code}`)
      expect(html).toContain(`id="error-${code}"`)
    }
  })

  it('shows every operation with its path and the scope it needs', () => {
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const operation of Object.values(item) as { operationId: string; summary: string; 'x-required-scope'?: string }[]) {
        expect(html).toContain(`id="operation-${operation.operationId}"`)
        expect(html).toContain(`<code>${path}</code>`)
        if (operation['x-required-scope']) expect(html).toContain(`scope <code>${operation['x-required-scope']}</code>`)
      }
    }
    expect(html).toContain('Settings → API Keys')
    expect(html).toContain('<td><code>in-review</code></td>')
  })

  it('has no broken in-page links and needs no script or outside asset', () => {
    const { targets, broken } = inPageLinks(html)
    expect(targets.length).toBeGreaterThan(20)
    expect(broken).toEqual([])
    expect(html).not.toMatch(/<script|<link|src="http|href="http/)
  })
})

describe("the content API's reference page", () => {
  const contentHtml = renderToStaticMarkup(createElement(ContentApiReferencePage))

  it('shows each operation of its own document, the content key, and none of /v1', () => {
    for (const [path, item] of Object.entries(buildContentOpenApiDocument().paths ?? {})) {
      for (const operation of Object.values(item) as { operationId: string }[]) {
        expect(contentHtml).toContain(`id="operation-${operation.operationId}"`)
        expect(contentHtml).toContain(`<code>${path}</code>`)
      }
    }
    expect(contentHtml).toContain('<a href="/content/v1/openapi.json">/content/v1/openapi.json</a>')
    expect(contentHtml).toContain('Content keys')
    expect(contentHtml).not.toContain('<code>/v1/articles</code>')
    expect(contentHtml).not.toContain('id="quick-start"')
  })

  it('has no broken in-page links and needs no script or outside asset', () => {
    const { targets, broken } = inPageLinks(contentHtml)
    expect(targets.length).toBeGreaterThan(3)
    expect(broken).toEqual([])
    expect(contentHtml).not.toMatch(/<script|<link|src="http|href="http/)
  })
})
