import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// The layering rules of docs/contributors.md's architecture section, checked on every import statement.

const root = path.resolve(import.meta.dirname, '../..')

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(`lib${path.sep}db${path.sep}generated`))
}

/** Every module a file imports, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8')
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3]!,
  )
  return specifiers.filter((specifier) => specifier.startsWith('.') || specifier.startsWith('@/')).map((specifier) => (specifier.startsWith('@/') ? specifier.slice(2) : path.relative(root, path.resolve(root, path.dirname(file), specifier))))
}

function violations(folder: string, forbidden: RegExp): string[] {
  return sourceFiles(folder).flatMap((file) => importsOf(file).filter((target) => forbidden.test(target)).map((target) => `${file} imports ${target}`))
}

describe('layering', () => {
  it('lib/ imports nothing from the doors above it (inngest/, app/, components/)', () => {
    expect(violations('lib', /^(inngest|app|components)\//)).toEqual([])
  })

  it('lib/events knows no domain: it imports nothing from lib/articles, lib/users or lib/webhooks', () => {
    expect(violations('lib/events', /^lib\/(articles|users|webhooks)\//)).toEqual([])
  })

  it('the domain imports nothing from its doors (lib/api, lib/trpc, lib/server): HTTP grammar lives in /v1', () => {
    for (const domain of ['lib/articles', 'lib/webhooks', 'lib/request-log', 'lib/users', 'lib/tokens', 'lib/departments', 'lib/desk', 'lib/media']) {
      expect(violations(domain, /^lib\/(api|trpc|server)\//), domain).toEqual([])
    }
  })

  it('the check sees imports at all (a broken pattern would pass every rule)', () => {
    expect(importsOf('lib/events/commit-change.ts')).toContain('lib/events/queue-hand-off.ts')
    expect(importsOf('inngest/outbox-queue.ts')).toContain('lib/events/event-queue.ts')
  })
})
