import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import ApiReferencePage from '../../app/docs/api/page.tsx'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'
import { problemCodeEntries } from '../../lib/problem-codes.ts'

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
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]))
    const targets = [...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1])
    expect(targets.length).toBeGreaterThan(20)
    expect(targets.filter((target) => !ids.has(target))).toEqual([])
    expect(html).not.toMatch(/<script|<link|src="http|href="http/)
  })
})
