import { Lexer, type Token, type Tokens } from 'marked'
import type { ReactNode } from 'react'
import { parseCodeBlockInfo } from './code-block-info'
import { guideLink } from './guide-links'
import { headingSlugger, plainText } from './heading-slugs'
import styles from './guides.module.css'

/**
 * A guide's Markdown as React elements, from marked's tokens (GitHub-flavoured: tables, fenced
 * code). Raw HTML in the Markdown is shown as text, never injected. Headings get GitHub's
 * anchors; `##` and `###` headings make the table of contents.
 */
export type TocEntry = { id: string; text: string; depth: 2 | 3 }
export type RenderedGuide = { title: string; toc: TocEntry[]; body: ReactNode }

export function renderGuideMarkdown(markdown: string, fallbackTitle: string): RenderedGuide {
  const tokens = Lexer.lex(markdown, { gfm: true })
  const slug = headingSlugger()
  const toc: TocEntry[] = []
  let title = fallbackTitle
  const body = tokens.map((token, index) => {
    if (token.type === 'heading') {
      const heading = token as Tokens.Heading
      const id = slug(plainText(heading.tokens))
      if (heading.depth === 1) title = plainText(heading.tokens)
      if (heading.depth === 2 || heading.depth === 3) toc.push({ id, text: plainText(heading.tokens), depth: heading.depth })
      const Heading = `h${heading.depth}` as 'h2'
      return (
        <Heading key={index} id={id}>
          {inline(heading.tokens)}
        </Heading>
      )
    }
    return block(token, index)
  })
  return { title, toc, body }
}

function block(token: Token, key: number): ReactNode {
  switch (token.type) {
    case 'space':
      return null
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>
    case 'code': {
      const code = token as Tokens.Code
      const info = parseCodeBlockInfo(code.lang)
      return (
        <div key={key} className={styles.codeBlock}>
          <pre>
            <code className={info.language ? `language-${info.language}` : undefined}>{code.text}</code>
          </pre>
          {info.notRunnable && <p className={styles.codeNote}>Not run by the docs&apos; tests: {info.notRunnable}</p>}
        </div>
      )
    }
    case 'list': {
      const list = token as Tokens.List
      const items = list.items.map((item, index) => <li key={index}>{item.tokens.map((child, childIndex) => (child.type === 'text' ? inline((child as Tokens.Text).tokens ?? [child]) : block(child, childIndex)))}</li>)
      return list.ordered ? (
        <ol key={key} start={typeof list.start === 'number' ? list.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      )
    }
    case 'table': {
      const table = token as Tokens.Table
      return (
        <div key={key} className={styles.tableWrap}>
          <table>
            <thead>
              <tr>
                {table.header.map((cell, index) => (
                  <th key={index}>{inline(cell.tokens)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, index) => (
                    <td key={index}>{inline(cell.tokens)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )
    }
    case 'blockquote':
      return <blockquote key={key}>{(token as Tokens.Blockquote).tokens.map(block)}</blockquote>
    case 'hr':
      return <hr key={key} />
    case 'heading': {
      const heading = token as Tokens.Heading
      const Heading = `h${Math.max(4, heading.depth)}` as 'h4'
      return <Heading key={key}>{inline(heading.tokens)}</Heading>
    }
    default:
      return <p key={key}>{'text' in token ? String(token.text) : token.raw}</p>
  }
}

function inline(tokens: Token[] | undefined): ReactNode {
  return (tokens ?? []).map((token, key) => {
    switch (token.type) {
      case 'text': {
        const text = token as Tokens.Text
        return text.tokens ? <span key={key}>{inline(text.tokens)}</span> : decode(text.text)
      }
      case 'escape':
        return (token as Tokens.Escape).text
      case 'strong':
        return <strong key={key}>{inline((token as Tokens.Strong).tokens)}</strong>
      case 'em':
        return <em key={key}>{inline((token as Tokens.Em).tokens)}</em>
      case 'del':
        return <del key={key}>{inline((token as Tokens.Del).tokens)}</del>
      case 'codespan':
        return <code key={key}>{decode((token as Tokens.Codespan).text)}</code>
      case 'br':
        return <br key={key} />
      case 'link': {
        const link = token as Tokens.Link
        const target = guideLink(link.href)
        return target.kind === 'href' ? (
          <a key={key} href={target.href}>
            {inline(link.tokens)}
          </a>
        ) : (
          <span key={key} title={`In the repository: ${target.path}`}>
            {inline(link.tokens)} (<code>{target.path}</code>)
          </span>
        )
      }
      case 'image': {
        const image = token as Tokens.Image
        const target = guideLink(image.href)
        // eslint-disable-next-line @next/next/no-img-element -- a screenshot served beside the guide, at its own size
        return target.kind === 'href' ? <img key={key} src={target.href} alt={image.text} className={styles.screenshot} /> : <code key={key}>{target.path}</code>
      }
      default:
        return token.raw
    }
  })
}

/** marked escapes &, <, >, " and ' in text; React escapes again, so undo marked's. */
function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!)
}
