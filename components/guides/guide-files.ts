import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

/**
 * The guides in docs/ are the one source for both readers: GitHub shows the Markdown files and
 * the app serves the same files at /docs/<name> (components/guides/guide-view.tsx), so the two
 * cannot disagree. The app runs from its checkout (npm start, npm run dev), where docs/ is.
 */
export const docsDirectory = path.join(process.cwd(), 'docs')

/** The five guides, one per reader, in the order the index lists them. */
export const readerGuides = [
  { slug: 'editors', reader: 'Editors', about: 'the portal, the desk, the workflow, revisions, editing as a team, previews, media' },
  { slug: 'admins', reader: 'Admins', about: 'API keys, webhooks, users, sign-in, second factors, single sign-on, security' },
  { slug: 'integrators', reader: 'Integrators', about: 'the API, search, sync, webhooks, the typed client, the content API' },
  { slug: 'operators', reader: 'Operators', about: 'the embedded default, production, configuration, the cluster, backups, benchmarks' },
  { slug: 'contributors', reader: 'Contributors', about: 'the code map, two walks through the layers, tests, benchmarks, Prisma offline' },
] as const

const guideName = /^[a-z0-9][a-z0-9-]*$/

/** Every Markdown file of docs/ (the reader guides and the topic guides beside them), by name. */
export function guideSlugs(): string[] {
  return readdirSync(docsDirectory)
    .filter((file) => file.endsWith('.md'))
    .map((file) => file.slice(0, -3))
    .filter((slug) => guideName.test(slug))
    .sort()
}

/** A guide's Markdown, or undefined for a name that is not a guide (never a path outside docs/). */
export function readGuide(slug: string): string | undefined {
  if (!guideName.test(slug)) return undefined
  const file = path.join(docsDirectory, `${slug}.md`)
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined
}

/** The guide's title: its first `# ` heading. */
export function guideTitle(markdown: string, slug: string): string {
  return /^# (.+)$/m.exec(markdown)?.[1]?.trim() ?? slug
}
