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
    run: /(?:^|\s)run(?:\s|$)/.test(attributes),
    runBy: quoted('run-by'),
    notRunnable: quoted('not-runnable'),
  }
}
