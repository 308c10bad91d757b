import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkMigrations, repositoryLayout, type Layout } from './check-migrations.ts'

// The expand/contract rule on new migrations. The first test is the rule applied to this
// repository's own migrations (what `npm test` enforces); the others show what it refuses.

describe('the expand/contract check on new migrations', () => {
  it("passes on this repository's migrations since the previous release", () => {
    const { violations } = checkMigrations()
    expect(violations).toEqual([])
  })

  let dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    dirs = []
  })

  /** A repository whose previous release is this one's schema, with `migrations` added after it. */
  function releaseWith(migrations: Record<string, string>): Layout {
    const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-migrations-'))
    dirs.push(dir)
    const layout = { migrationsDir: path.join(dir, 'migrations'), baselineDir: path.join(dir, 'previous-release'), schemaFile: repositoryLayout.schemaFile }
    mkdirSync(layout.baselineDir, { recursive: true })
    copyFileSync(repositoryLayout.schemaFile, path.join(layout.baselineDir, 'schema.prisma'))
    writeFileSync(path.join(layout.baselineDir, 'last-migration'), '20261127023000_article_tag_counts\n')
    // An old migration that dropped something is history, not this release's.
    mkdirSync(path.join(layout.migrationsDir, '20261101000000_old'), { recursive: true })
    writeFileSync(path.join(layout.migrationsDir, '20261101000000_old', 'migration.sql'), 'ALTER TABLE "articles" DROP COLUMN "lede";')
    for (const [name, sql] of Object.entries(migrations)) {
      mkdirSync(path.join(layout.migrationsDir, name), { recursive: true })
      writeFileSync(path.join(layout.migrationsDir, name, 'migration.sql'), sql)
    }
    return layout
  }

  it('refuses dropping, renaming or retyping a column the previous release uses, and dropping its tables', () => {
    const { checked, violations } = checkMigrations(
      releaseWith({
        '20261129070000_contract': [
          '-- the lede moves into the body',
          'ALTER TABLE "articles" DROP COLUMN "lede",',
          'ADD COLUMN "summary" TEXT;',
          'ALTER TABLE departments RENAME COLUMN name TO title;',
          'ALTER TABLE "public"."content_keys" ALTER COLUMN "name" SET DATA TYPE VARCHAR(50);',
          'DROP TABLE IF EXISTS "mail_messages" CASCADE;',
        ].join('\n'),
      }),
    )
    expect(checked).toEqual(['20261129070000_contract'])
    expect(violations).toHaveLength(4)
    expect(violations[0]).toContain('20261129070000_contract: drops column articles.lede, which the previous release (20261127023000_article_tag_counts) still uses')
    expect(violations[1]).toContain('renames column departments.name')
    expect(violations[2]).toContain('changes the type of column content_keys.name')
    expect(violations[3]).toContain('drops table mail_messages')
  })

  it('refuses a NOT NULL column without a default on a table the previous release writes, and tightening one of its columns', () => {
    const { violations } = checkMigrations(
      releaseWith({
        '20261129070000_expand': 'ALTER TABLE "departments" ADD COLUMN "code" TEXT NOT NULL;\nALTER TABLE "articles" ALTER COLUMN "lede" SET NOT NULL;',
      }),
    )
    expect(violations).toHaveLength(2)
    expect(violations[0]).toContain('adds a NOT NULL column without a default to departments (code)')
    expect(violations[1]).toContain('makes NOT NULL column articles.lede')
  })

  it('lets a release expand, and contract what only this release had, or what the previous release no longer used', () => {
    const { violations } = checkMigrations(
      releaseWith({
        '20261129070000_expand': [
          'CREATE TABLE "scratch_notes" ("id" TEXT NOT NULL, "tenant_id" TEXT NOT NULL, CONSTRAINT "scratch_notes_pkey" PRIMARY KEY ("id"));',
          'ALTER TABLE "articles" ADD COLUMN "summary" TEXT, ADD COLUMN "words" INTEGER NOT NULL DEFAULT 0;',
          'ALTER TABLE "articles" ALTER COLUMN "lede" DROP NOT NULL, DROP CONSTRAINT "some_check";',
          'CREATE INDEX "articles_summary_idx" ON "articles" ("summary");',
          // A function body that mentions a drop is not one.
          "CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN EXECUTE 'ALTER TABLE articles DROP COLUMN body'; RETURN NEW; END $$ LANGUAGE plpgsql;",
        ].join('\n'),
        '20261129070100_contract_own': 'ALTER TABLE "articles" DROP COLUMN "summary";\nDROP TABLE "scratch_notes";\nALTER TABLE "articles" DROP COLUMN IF EXISTS "legacy_flag";',
      }),
    )
    expect(violations).toEqual([])
  })
})
