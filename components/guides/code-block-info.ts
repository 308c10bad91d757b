/**
 * What a fenced code block's info string says about running it. Every block of the guides says
 * one of three things (tests/docs/guide-code-blocks.integration.test.ts holds them to it):
 *   ```sh run                          the docs test runs it as a reader would
 *   ```ts run-by="clients/…test.ts"    that test runs it (and checks the guide still shows it)
 *   ```sh not-runnable="why"           it cannot be run as written, and says why
 */
export type CodeBlockInfo = { language: string; run: boolean; runBy?: string; notRunnable?: string }

export function parseCodeBlockInfo(info: string | undefined): CodeBlockInfo {
  const text = (info ?? '').trim()
  const language = /^[^\s]*/.exec(text)![0]
  const attributes = text.slice(language.length)
  const quoted = (name: string) => new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes)?.[1]
  return {
    language,
    // A bare `run`, not a word inside a quoted reason.
    run: attributes.replace(/[\w-]+="[^"]*"/g, ' ').split(/\s+/).includes('run'),
    runBy: quoted('run-by'),
    notRunnable: quoted('not-runnable'),
  }
}

export type GuideCodeBlock = CodeBlockInfo & { text: string; info: string; line: number }

/** Every fenced code block of a Markdown file, nested ones included, with the line it starts on. */
export function guideCodeBlocks(markdown: string): GuideCodeBlock[] {
  const blocks: GuideCodeBlock[] = []
  const fence = /^ {0,3}(```+|~~~+)([^\n]*)\n([\s\S]*?)\n {0,3}\1[ \t]*$/gm
  for (const match of markdown.matchAll(fence)) {
    const info = match[2]!.trim()
    blocks.push({ ...parseCodeBlockInfo(info), info, text: match[3]!, line: markdown.slice(0, match.index).split('\n').length })
  }
  return blocks
}
