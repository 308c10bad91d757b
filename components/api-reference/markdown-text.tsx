import type { ReactNode } from 'react'

// The document's descriptions use a small subset of CommonMark: paragraphs, `- ` lists,
// `###` headings, pipe tables, `code`, **bold** and [links](...). Rendering that subset
// here keeps the reference free of a Markdown dependency and of raw HTML injection.

type Block =
  | { kind: 'paragraph'; text: string }
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; header: string[]; rows: string[][] }

export function MarkdownText({ text, headingLevel = 3 }: { text: string; headingLevel?: number }) {
  return (
    <>
      {parseBlocks(text).map((block, index) => (
        <MarkdownBlock key={index} block={block} headingLevel={headingLevel} />
      ))}
    </>
  )
}

/** One line of Markdown without a paragraph around it, for summaries and labels. */
export function MarkdownInline({ text }: { text: string }) {
  return <>{inline(text)}</>
}

function MarkdownBlock({ block, headingLevel }: { block: Block; headingLevel: number }) {
  switch (block.kind) {
    case 'heading': {
      const Heading = `h${Math.min(6, headingLevel + block.level - 3)}` as 'h3'
      return <Heading>{inline(block.text)}</Heading>
    }
    case 'list':
      return (
        <ul>
          {block.items.map((item, index) => (
            <li key={index}>{inline(item)}</li>
          ))}
        </ul>
      )
    case 'table':
      return (
        <table>
          <thead>
            <tr>
              {block.header.map((cell, index) => (
                <th key={index}>{inline(cell)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {block.rows.map((row, rowIndex) => (
              <tr key={rowIndex}>
                {row.map((cell, index) => (
                  <td key={index}>{inline(cell)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )
    default:
      return <p>{inline(block.text)}</p>
  }
}

function parseBlocks(text: string): Block[] {
  const blocks: Block[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!.trim()
    if (line === '') {
      i++
    } else if (/^#{1,6} /.test(line)) {
      const [hashes = ''] = line.split(' ', 1)
      blocks.push({ kind: 'heading', level: hashes.length, text: line.slice(hashes.length + 1) })
      i++
    } else if (line.startsWith('|')) {
      const rows: string[][] = []
      for (; i < lines.length && lines[i]!.trim().startsWith('|'); i++) rows.push(tableCells(lines[i]!))
      const [header = [], , ...body] = rows
      blocks.push({ kind: 'table', header, rows: body })
    } else if (line.startsWith('- ')) {
      const items: string[] = []
      for (; i < lines.length && lines[i]!.trim().startsWith('- '); i++) items.push(lines[i]!.trim().slice(2))
      blocks.push({ kind: 'list', items })
    } else {
      const paragraph: string[] = []
      for (; i < lines.length && isParagraphLine(lines[i]!.trim()); i++) paragraph.push(lines[i]!.trim())
      blocks.push({ kind: 'paragraph', text: paragraph.join(' ') })
    }
  }
  return blocks
}

function isParagraphLine(line: string): boolean {
  return line !== '' && !line.startsWith('|') && !line.startsWith('- ') && !/^#{1,6} /.test(line)
}

function tableCells(line: string): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim())
}

const inlinePattern = /`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g

function inline(text: string): ReactNode[] {
  const nodes: ReactNode[] = []
  let last = 0
  for (const match of text.matchAll(inlinePattern)) {
    if (match.index > last) nodes.push(text.slice(last, match.index))
    const [, code, bold, label, href] = match
    const key = nodes.length
    if (code !== undefined) nodes.push(<code key={key}>{code}</code>)
    else if (bold !== undefined) nodes.push(<strong key={key}>{inline(bold)}</strong>)
    else if (label !== undefined && href !== undefined) nodes.push(safeLink(key, label, href))
    last = match.index + match[0].length
  }
  if (last < text.length) nodes.push(text.slice(last))
  return nodes
}

// Only links within the site or to http(s) addresses; anything else (javascript:, data:) is shown as text.
function safeLink(key: number, label: string, href: string): ReactNode {
  if (!/^(https?:\/\/|\/|#)/.test(href)) return label
  return (
    <a key={key} href={href}>
      {inline(label)}
    </a>
  )
}
