import { Prisma, type Article } from '../db/generated/client.ts'
import type { ArticleStatus } from '../db/generated/enums.ts'
import { createId } from '../ids.ts'
import { articleColumns } from './article-rows.ts'
import { toApiStatus } from './article-status.ts'

// The parts of the hot paths' article writes (PATCH, transitions, schedules), which
// article-write-statement.ts runs as one statement with their events. Prisma's
// updateManyAndReturn and create cost more CPU per request than the statements themselves
// (bench: writes against the framework-free baseline); raw SQL bypasses the tenant scope, so
// every statement binds tenant_id itself.

export type ArticleChanges = {
  headline?: string
  lede?: string | null
  body?: string | null
  departmentId?: string | null
  tags?: string[]
  authorId?: string
  editedById?: string | null
  restoringRevisionId?: string | null
  featuredMediaId?: string | null
  status?: ArticleStatus
  scheduledPublishAt?: Date | null
  publishedAt?: Date
  url?: string | null
  slug?: string | null
  previousUrls?: string[]
}

const assignments: { [Field in keyof Required<ArticleChanges>]: (value: ArticleChanges[Field]) => Prisma.Sql } = {
  headline: (value) => Prisma.sql`headline = ${value}`,
  lede: (value) => Prisma.sql`lede = ${value}`,
  body: (value) => Prisma.sql`body = ${value}`,
  departmentId: (value) => Prisma.sql`department_id = ${value}`,
  tags: (value) => Prisma.sql`tags = ${value}::text[]`,
  authorId: (value) => Prisma.sql`author_id = ${value}`,
  editedById: (value) => Prisma.sql`edited_by_id = ${value}::text`,
  restoringRevisionId: (value) => Prisma.sql`restoring_revision_id = ${value}::text`,
  featuredMediaId: (value) => Prisma.sql`featured_media_id = ${value}::text`,
  status: (value) => Prisma.sql`status = ${toApiStatus(value!)}::"ArticleStatus"`,
  scheduledPublishAt: (value) => Prisma.sql`scheduled_publish_at = ${value}::timestamptz`,
  publishedAt: (value) => Prisma.sql`published_at = ${value}::timestamptz`,
  url: (value) => Prisma.sql`url = ${value}::text`,
  slug: (value) => Prisma.sql`slug = ${value}::text`,
  previousUrls: (value) => Prisma.sql`previous_urls = ${value}::text[]`,
}

/**
 * The UPDATE of the version of the article that was read (and, with `sameStatus`, only while it
 * is still in that state), raising its version, and the article it stores (for writeArticle).
 */
export function updateOfReadArticle(current: Article, given: ArticleChanges, options: { sameStatus?: boolean } = {}): { statement: Prisma.Sql; expected: Article } {
  // Only the statement that restores names a revision: every other write clears an earlier
  // restore's mark, so the revision trigger never credits a later change to it.
  const changes: ArticleChanges = { ...given, restoringRevisionId: given.restoringRevisionId ?? null }
  const fields = (Object.keys(changes) as (keyof ArticleChanges)[]).filter((field) => changes[field] !== undefined)
  const sets = fields.map((field) => (assignments[field] as (value: unknown) => Prisma.Sql)(changes[field]))
  const statement = Prisma.sql`
    UPDATE articles SET ${Prisma.join([...sets, Prisma.sql`version = version + 1`, Prisma.sql`updated_at = now()`], ', ')}
    WHERE tenant_id = ${current.tenantId} AND id = ${current.id} AND version = ${current.version}
      ${options.sameStatus ? Prisma.sql`AND status = ${toApiStatus(current.status)}::"ArticleStatus"` : Prisma.empty}
    RETURNING ${Prisma.raw(articleColumns)}`
  const expected: Article = { ...current, ...Object.fromEntries(fields.map((field) => [field, changes[field]])), version: current.version + 1 }
  return { statement, expected }
}

export type TransitionRow = { id?: string; tenantId: string; articleId: string; from: ArticleStatus; to: ArticleStatus; actorId: string | null; publishAt?: Date | null; scheduleCancelled?: boolean; at?: Date }

/** A row of the article's workflow history, written with the article's change (a writeArticle companion). */
export function transitionOfWritten(row: TransitionRow): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO article_transitions (id, tenant_id, article_id, from_state, to_state, actor_id, publish_at, schedule_cancelled, version, created_at)
    SELECT ${row.id ?? createId('trn')}, ${row.tenantId}, written.id, ${toApiStatus(row.from)}::"ArticleStatus", ${toApiStatus(row.to)}::"ArticleStatus",
           ${row.actorId}::text, ${row.publishAt ?? null}::timestamptz, ${row.scheduleCancelled ?? false}, written.version, ${row.at ?? new Date()}::timestamptz
    FROM written`
}

/** A review note that came with a move (a writeArticle companion beside the move's history row `transitionId`). */
export function noteOfMove(note: { tenantId: string; authorId: string | null; body: string; transitionId: string; at: Date }): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO article_notes (id, tenant_id, article_id, author_id, kind, body, transition_id, created_at)
    SELECT ${createId('not')}, ${note.tenantId}, written.id, ${note.authorId}::text, 'move', ${note.body}, ${note.transitionId}, ${note.at}::timestamptz
    FROM written`
}
