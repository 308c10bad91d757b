import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkMigrations, markRelease, repositoryLayout, type Layout } from '../../scripts/check-migrations.ts'

// Found by the issue-49 tester: migrations that drop a column the previous release uses, written
// as people write them, and that the expand/contract check let through.

let dirs: string[] = []
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

/** A repository whose previous release is this one's schema, cut at `lastMigration`, with `migrations` added. */
function releaseWith(migrations: Record<string, string>, lastMigration = '20261127023000_article_tag_counts'): Layout {
  const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-migrations-break-'))
  dirs.push(dir)
  const layout = { migrationsDir: path.join(dir, 'migrations'), baselineDir: path.join(dir, 'previous-release'), schemaFile: repositoryLayout.schemaFile }
  mkdirSync(layout.baselineDir, { recursive: true })
  copyFileSync(repositoryLayout.schemaFile, path.join(layout.baselineDir, 'schema.prisma'))
  writeFileSync(path.join(layout.baselineDir, 'last-migration'), `${lastMigration}\n`)
  mkdirSync(path.join(layout.migrationsDir, lastMigration), { recursive: true })
  writeFileSync(path.join(layout.migrationsDir, lastMigration, 'migration.sql'), 'SELECT 1;')
  for (const [name, sql] of Object.entries(migrations)) {
    mkdirSync(path.join(layout.migrationsDir, name), { recursive: true })
    writeFileSync(path.join(layout.migrationsDir, name, 'migration.sql'), sql)
  }
  return layout
}

describe('the expand/contract check against drops written by hand', () => {
  it('sees a drop inside a DO block (it runs at migration time, unlike a function body)', () => {
    const { violations } = checkMigrations(
      releaseWith({
        '20261130000000_guarded_drop': `DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'articles' AND column_name = 'lede') THEN
    ALTER TABLE "articles" DROP COLUMN "lede";
  END IF;
END $$;`,
      }),
    )
    expect(violations).toHaveLength(1)
    expect(violations[0]).toContain('drops column articles.lede')
  })

  it('sees a drop on a line whose string literal holds "--"', () => {
    const { violations } = checkMigrations(
      releaseWith({
        '20261130000000_comment_then_drop': `COMMENT ON COLUMN "articles"."lede" IS 'moved into the body -- see docs'; ALTER TABLE "articles" DROP COLUMN "lede";`,
      }),
    )
    expect(violations).toHaveLength(1)
    expect(violations[0]).toContain('drops column articles.lede')
  })

  it('sees a drop in a migration named before the previous release but added after it (a branch rebased past the release)', () => {
    // The release is cut as docs/deploy.md says (--mark-release), then a branch begun before it
    // is merged. prisma migrate deploy applies every migration the database has not recorded,
    // whatever its name's order.
    const layout = releaseWith({})
    markRelease(layout)
    mkdirSync(path.join(layout.migrationsDir, '20261126000000_from_an_old_branch'), { recursive: true })
    writeFileSync(path.join(layout.migrationsDir, '20261126000000_from_an_old_branch', 'migration.sql'), 'ALTER TABLE "articles" DROP COLUMN "lede";')
    const { checked, violations } = checkMigrations(layout)
    expect(checked).toContain('20261126000000_from_an_old_branch')
    expect(violations).toHaveLength(1)
  })

  it('sees an enum value the previous release writes being renamed', () => {
    const { violations } = checkMigrations(releaseWith({ '20261130000000_rename_status': `ALTER TYPE "ArticleStatus" RENAME VALUE 'in-review' TO 'review';` }))
    expect(violations).toHaveLength(1)
  })
})
