import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { guideCodeBlocks } from '../../components/guides/code-block-info.ts'
import { docsDirectory, guideSlugs } from '../../components/guides/guide-files.ts'
import { GuideView } from '../../components/guides/guide-view.tsx'
import { inPageLinks } from '../support/openapi-checks.ts'

// Every guide /docs serves (the topic guides too, not only the five reader guides) keeps the
// issue's promises: its in-page links land on a heading, and each code block is run by a test
// or says why it is not.
describe('every guide served at /docs', () => {
  it.each(guideSlugs())('%s: in-page links land', (slug) => {
    expect(inPageLinks(renderToStaticMarkup(createElement(GuideView, { slug }))).broken).toEqual([])
  })

  it.each(guideSlugs())('%s: each code block is run or says why not', (slug) => {
    const blocks = guideCodeBlocks(readFileSync(path.join(docsDirectory, `${slug}.md`), 'utf8'))
    const unexplained = blocks.filter((block) => !block.run && block.runBy === undefined && !block.notRunnable)
    expect(unexplained.map((block) => `docs/${slug}.md:${block.line} (${block.info || 'no info string'})`)).toEqual([])
  })
})
