import { existsSync } from 'node:fs'
import path from 'node:path'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import DocsIndexPage from '../../app/docs/page.tsx'
import { GET as screenshot } from '../../app/docs/screenshots/[file]/route.ts'
import { docsDirectory, guideSlugs, readerGuides } from '../../components/guides/guide-files.ts'
import { GuideView } from '../../components/guides/guide-view.tsx'
import { inPageLinks } from '../support/openapi-checks.ts'

// /docs serves the guides of docs/ from the same Markdown GitHub shows: each with its table of
// contents, its in-page links landing on a heading, its links to other guides landing on a
// guide (and a heading there), and its screenshots served.

const render = (slug: string) => renderToStaticMarkup(createElement(GuideView, { slug }))
const ids = (html: string) => new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]))

// Topic guides other issues write beside these, linked by name; they land with those issues.
const writtenBeside = new Set(['team-editing', 'scheduling-and-previews', 'signing-in', 'second-factors', 'media'])

describe('the guides at /docs', () => {
  it('lists every reader guide, the topic guides and the API references', () => {
    const html = renderToStaticMarkup(createElement(DocsIndexPage))
    for (const guide of readerGuides) expect(html).toContain(`href="/docs/${guide.slug}"`)
    for (const slug of guideSlugs()) expect(html).toContain(`href="/docs/${slug}"`)
    expect(html).toContain('href="/docs/api"')
    expect(html).toContain('href="/docs/content-api"')
  })

  it.each(readerGuides.map((guide) => guide.slug))('renders %s with a table of contents whose links all land', (slug) => {
    const html = render(slug)
    expect(html).toMatch(/<h1 id="[^"]+">/)
    const { targets, broken } = inPageLinks(html)
    expect(targets.length).toBeGreaterThan(3)
    expect(broken).toEqual([])
    expect(html).toContain('aria-current="page"')
    // Raw HTML of the Markdown is text, never markup; nothing runs.
    expect(html).not.toMatch(/<script/)
  })

  it('lands every link between guides on a guide and a heading there', () => {
    const missing: string[] = []
    for (const slug of guideSlugs()) {
      for (const [, target, fragment] of render(slug).matchAll(/href="\/docs\/([a-z0-9-]+)(?:#([^"]+))?"/g)) {
        if (target === 'api' || target === 'content-api' || target === 'screenshots') continue
        if (!guideSlugs().includes(target!)) {
          if (!writtenBeside.has(target!)) missing.push(`${slug} → ${target}`)
          continue
        }
        if (fragment && !ids(render(target!)).has(fragment)) missing.push(`${slug} → ${target}#${fragment}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('shows the sections that moved out of the README where each reader looks', () => {
    expect(render('integrators')).toContain('id="keeping-a-mirror-in-sync"')
    expect(render('integrators')).toContain('id="a-receiver-to-try"')
    expect(render('admins')).toContain('id="signing-in"')
    expect(render('operators')).toContain('id="configuration"')
    expect(render('editors')).toContain('id="editing-as-a-team-leases-live-pages-notes-previews"')
    expect(render('contributors')).toContain('id="architecture-two-walks"')
  })

  it('serves the screenshots the guides show, and nothing else from disk', async () => {
    const shown = new Set<string>()
    for (const slug of guideSlugs()) for (const [, file] of render(slug).matchAll(/src="\/docs\/screenshots\/([^"]+)"/g)) shown.add(file!)
    expect(shown.size).toBeGreaterThan(10)
    for (const file of shown) expect(existsSync(path.join(docsDirectory, 'screenshots', file)), file).toBe(true)
    const served = await screenshot(new Request('http://localhost/'), { params: Promise.resolve({ file: [...shown][0]! }) })
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    const outside = await screenshot(new Request('http://localhost/'), { params: Promise.resolve({ file: '..%2F..%2Fpackage.json' }) })
    expect(outside.status).toBe(404)
  })

  it('shows a code block as code, and why it is not run where it is not', () => {
    const html = render('operators')
    expect(html).toContain('<code class="language-sh">npm ci &amp;&amp; npm run build')
  })
})
