/**
 * The expand/contract rule of a rolling deploy, checked on every new migration (`npm test` runs
 * it: scripts/check-migrations.test.ts; alone: `tsx scripts/check-migrations.ts`).
 *
 * During a rolling deploy the previous release's instances serve on the new schema until the
 * last of them is replaced. So a release's migrations may only expand: add tables, nullable
 * columns or columns with a default, indexes. They may not drop, rename or retype a table or
 * column the previous release still uses, make one of its columns NOT NULL, or add a NOT NULL
 * column without a default to a table it writes. Contracting waits for the release after the one
 * whose code stopped using the column.
 *
 * "The previous release" is prisma/previous-release/: the schema.prisma its code was generated
 * from (what its queries name) and the name of its last migration. The release's migrations are
 * those named after that one. Cutting a release: `tsx scripts/check-migrations.ts --mark-release`
 * copies today's schema and last migration there (docs/deploy.md, "Migrations in a rolling deploy").
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { knownMigrations } from './schema-migrations.ts'

const root = path.resolve(import.meta.dirname, '..')

export type Layout = { migrationsDir: string; baselineDir: string; schemaFile: string }
export const repositoryLayout: Layout = {
  migrationsDir: path.join(root, 'prisma/migrations'),
  baselineDir: path.join(root, 'prisma/previous-release'),
  schemaFile: path.join(root, 'prisma/schema.prisma'),
}

/** Each table the schema maps, with the columns its models read and write (relation fields hold none). */
export function schemaColumns(schema: string): Map<string, Set<string>> {
  const text = schema.replace(/\/\/.*$/gm, '')
  const blocks = [...text.matchAll(/^\s*model\s+(\w+)\s*\{([\s\S]*?)^\s*\}/gm)]
  const models = new Set(blocks.map((block) => block[1]!))
  const tables = new Map<string, Set<string>>()
  for (const [, model, body] of blocks) {
    const table = /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? model!
    const columns = new Set<string>()
    for (const line of body!.split('\n')) {
      const field = /^\s*(\w+)\s+([\w]+)(\(|\[\]|\?)?/.exec(line)
      if (!field || line.trim().startsWith('@@')) continue
      if (models.has(field[2]!)) continue
      columns.add(/@map\("([^"]+)"\)/.exec(line)?.[1] ?? field[1]!)
    }
    tables.set(table, columns)
  }
  return tables
}

export type Contraction = {
  kind: 'drops table' | 'renames table' | 'drops column' | 'renames column' | 'changes the type of column' | 'makes NOT NULL column' | 'adds a NOT NULL column without a default to' | 'renames a value of enum' | 'drops enum' | 'renames enum'
  table: string
  column?: string
}

/** Each enum the schema declares (the PostgreSQL type of that name), with the values its models write (@map'ed as stored). */
export function schemaEnums(schema: string): Map<string, Set<string>> {
  const text = schema.replace(/\/\/.*$/gm, '')
  const enums = new Map<string, Set<string>>()
  for (const [, name, body] of text.matchAll(/^\s*enum\s+(\w+)\s*\{([\s\S]*?)^\s*\}/gm)) {
    const type = /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? name!
    const values = new Set<string>()
    for (const line of body!.split('\n')) {
      const value = /^\s*(\w+)/.exec(line)
      if (value && !line.trim().startsWith('@@')) values.add(/@map\("([^"]+)"\)/.exec(line)?.[1] ?? value[1]!)
    }
    enums.set(type, values)
  }
  return enums
}

const identifier = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*))?`
const name = (raw: string) => {
  const last = raw.split(/\.(?=(?:[^"]*"[^"]*")*[^"]*$)/).pop()!.trim()
  return last.startsWith('"') ? last.slice(1, -1).replaceAll('""', '"') : last.toLowerCase()
}

/** Splits at top-level commas (not inside parentheses or quotes). */
function topLevelParts(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quote: string | null = null
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === quote) quote = null
    } else if (c === '"' || c === "'") quote = c
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts.map((part) => part.trim()).filter(Boolean)
}

/** What a migration's SQL removes or tightens, statement by statement (function bodies and comments aside). */
export function contractions(sql: string): Contraction[] {
  const found: Contraction[] = []
  // One left-to-right pass, so that a quote opens where it really opens: a '--' or '/*' inside a
  // string literal is not a comment (removing "the rest of the line" hid the statement after it),
  // and a ';' inside one ends no statement. A DO block's body runs now, at migration time:
  // its statements are checked too (a function's body runs later, when called, and is skipped).
  const text = sql.replace(
    /(\bDO\s+(?:LANGUAGE\s+\w+\s+)?)?\$([A-Za-z_]*)\$([\s\S]*?)\$\2\$|'(?:[^']|'')*'|\/\*[\s\S]*?\*\/|--[^\n]*/gi,
    (match, doKeyword: string | undefined, _tag: string | undefined, body: string | undefined) => {
      if (body !== undefined) {
        if (doKeyword) found.push(...contractions(body.replace(/\b(?:BEGIN|THEN|ELSE|ELSIF|LOOP|DECLARE)\b/gi, ';')))
        return `${doKeyword ?? ''}''`
      }
      // A string literal stays (an enum value is named by one), but its ';' splits no statement.
      return match.startsWith("'") ? match.replaceAll(';', ',') : ' '
    },
  )
  for (const statement of text.split(';').map((part) => part.trim().replace(/\s+/g, ' '))) {
    const dropTable = new RegExp(String.raw`^DROP TABLE (?:IF EXISTS )?(.+?)(?: CASCADE| RESTRICT)?$`, 'i').exec(statement)
    if (dropTable) {
      for (const table of topLevelParts(dropTable[1]!)) found.push({ kind: 'drops table', table: name(table) })
      continue
    }
    // Enums: the previous release writes their values, and reads every value it knows.
    const enumValue = new RegExp(String.raw`^ALTER TYPE (${identifier}) RENAME VALUE '((?:[^']|'')*)' TO `, 'i').exec(statement)
    if (enumValue) {
      found.push({ kind: 'renames a value of enum', table: name(enumValue[1]!), column: enumValue[2]!.replaceAll("''", "'") })
      continue
    }
    const renameType = new RegExp(String.raw`^ALTER TYPE (${identifier}) RENAME TO `, 'i').exec(statement)
    if (renameType) {
      found.push({ kind: 'renames enum', table: name(renameType[1]!) })
      continue
    }
    const dropType = new RegExp(String.raw`^DROP TYPE (?:IF EXISTS )?(.+?)(?: CASCADE| RESTRICT)?$`, 'i').exec(statement)
    if (dropType) {
      for (const type of topLevelParts(dropType[1]!)) found.push({ kind: 'drops enum', table: name(type) })
      continue
    }
    const alter = new RegExp(String.raw`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?(${identifier}) (.*)$`, 'i').exec(statement)
    if (!alter) continue
    const table = name(alter[1]!)
    const rest = alter[2]!
    if (/^RENAME TO /i.test(rest)) {
      found.push({ kind: 'renames table', table })
      continue
    }
    const rename = new RegExp(String.raw`^RENAME (?:COLUMN )?(${identifier}) TO `, 'i').exec(rest)
    if (rename && !/^RENAME CONSTRAINT /i.test(rest)) {
      found.push({ kind: 'renames column', table, column: name(rename[1]!) })
      continue
    }
    for (const action of topLevelParts(rest)) {
      const drop = new RegExp(String.raw`^DROP (?:COLUMN )?(?:IF EXISTS )?(${identifier})`, 'i').exec(action)
      if (drop && !/^DROP (CONSTRAINT|DEFAULT|NOT NULL|IDENTITY|EXPRESSION)\b/i.test(action)) found.push({ kind: 'drops column', table, column: name(drop[1]!) })
      const retype = new RegExp(String.raw`^ALTER (?:COLUMN )?(${identifier}) (?:SET DATA )?TYPE `, 'i').exec(action)
      if (retype) found.push({ kind: 'changes the type of column', table, column: name(retype[1]!) })
      const notNull = new RegExp(String.raw`^ALTER (?:COLUMN )?(${identifier}) SET NOT NULL`, 'i').exec(action)
      if (notNull) found.push({ kind: 'makes NOT NULL column', table, column: name(notNull[1]!) })
      const add = new RegExp(String.raw`^ADD (?:COLUMN )?(?:IF NOT EXISTS )?(${identifier}) (.*)$`, 'i').exec(action)
      if (add && !/^ADD (CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK)\b/i.test(action) && /\bNOT NULL\b/i.test(add[2]!) && !/\b(DEFAULT|GENERATED)\b/i.test(add[2]!)) {
        found.push({ kind: 'adds a NOT NULL column without a default to', table, column: name(add[1]!) })
      }
    }
  }
  return found
}

export type Baseline = { lastMigration: string; tables: Map<string, Set<string>>; enums: Map<string, Set<string>>; migrations?: Set<string> }

export function readBaseline(layout: Layout = repositoryLayout): Baseline {
  const lastMigration = readFileSync(path.join(layout.baselineDir, 'last-migration'), 'utf8').trim()
  const schema = readFileSync(path.join(layout.baselineDir, 'schema.prisma'), 'utf8')
  // Every migration the previous release had (written by --mark-release): a migration named
  // before its last one but added since (a branch begun before the release) is this release's too,
  // and prisma migrate deploy applies it as any other.
  const listFile = path.join(layout.baselineDir, 'migration-names')
  const migrations = existsSync(listFile) ? new Set(readFileSync(listFile, 'utf8').split('\n').map((line) => line.trim()).filter(Boolean)) : undefined
  return { lastMigration, tables: schemaColumns(schema), enums: schemaEnums(schema), migrations }
}

/** The release's migrations (named after the previous release's last) that break the previous release's code, one line each. */
export function checkMigrations(layout: Layout = repositoryLayout): { checked: string[]; violations: string[] } {
  const baseline = readBaseline(layout)
  const checked = knownMigrations(layout.migrationsDir).filter((migration) => (baseline.migrations ? !baseline.migrations.has(migration) : migration > baseline.lastMigration))
  const violations: string[] = []
  for (const migration of checked) {
    const file = path.join(layout.migrationsDir, migration, 'migration.sql')
    if (!existsSync(file)) continue
    for (const change of contractions(readFileSync(file, 'utf8'))) {
      if (change.kind.endsWith('enum')) {
        // A type the previous release's schema does not declare is this release's own (or a
        // replacement Prisma made: its ALTER COLUMN … TYPE is refused on the column).
        const values = baseline.enums.get(change.table)
        if (!values || (change.column !== undefined && !values.has(change.column))) continue
        const what = change.column === undefined ? change.table : `${change.table} ('${change.column}')`
        violations.push(`${migration}: ${change.kind} ${what}, which the previous release (${baseline.lastMigration}) still uses. Add the new value now, stop writing the old one, and remove it in a later release.`)
        continue
      }
      const columns = baseline.tables.get(change.table)
      if (!columns) continue
      const usedColumn = change.column === undefined || change.kind === 'adds a NOT NULL column without a default to' || columns.has(change.column)
      if (!usedColumn) continue
      const what = change.column === undefined ? change.table : change.kind.endsWith('to') ? `${change.table} (${change.column})` : `${change.table}.${change.column}`
      violations.push(
        `${migration}: ${change.kind} ${what}, which the previous release (${baseline.lastMigration}) still ${change.kind.startsWith('adds') ? 'writes without it' : 'uses'}. ` +
          'Expand now (add, backfill, stop using it) and contract in the release after the one that stopped using it.',
      )
    }
  }
  return { checked, violations }
}

/** Cutting a release: today's schema and last migration become the previous release's. */
export function markRelease(layout: Layout = repositoryLayout): string {
  const last = knownMigrations(layout.migrationsDir).at(-1)!
  mkdirSync(layout.baselineDir, { recursive: true })
  copyFileSync(layout.schemaFile, path.join(layout.baselineDir, 'schema.prisma'))
  writeFileSync(path.join(layout.baselineDir, 'last-migration'), `${last}\n`)
  writeFileSync(path.join(layout.baselineDir, 'migration-names'), `${knownMigrations(layout.migrationsDir).join('\n')}\n`)
  return last
}

if (process.argv[1] === import.meta.filename) {
  if (process.argv.includes('--mark-release')) {
    console.log(`The previous release is now this one: schema and ${markRelease()} recorded in prisma/previous-release/.`)
  } else {
    const { checked, violations } = checkMigrations()
    for (const violation of violations) console.error(violation)
    console.log(`${checked.length} migration(s) in this release checked against the previous release; ${violations.length} break it.`)
    if (violations.length) process.exitCode = 1
  }
}
