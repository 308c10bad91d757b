import { Prisma, type Article } from '../db/generated/client.ts'
import type { SqlTransaction } from '../db/sql-transaction.ts'
import type { Emit } from '../events/commit-change.ts'
import type { OutboxEventKind } from '../events/event-kinds.ts'
import { toRecordedEvents } from '../events/record-event.ts'
import { withContentPurges } from '../content/content-purges.ts'
import { logger } from '../ops/logger.ts'
import { toArticleRecord } from './article-record.ts'
import { toArticle, type StoredArticle } from './article-rows.ts'

/** An event of an article write: with `record`, its data is the written article's record. */
export type ArticleWriteEvent = { kind: OutboxEventKind; occurredAt?: Date } & ({ record: true } | { data: Prisma.InputJsonObject })

export type ArticleWrite = {
  /** The article's INSERT or UPDATE, ending in RETURNING articleColumns. */
  statement: Prisma.Sql
  /** The article as the statement stores it, but for created_at and updated_at, which the database assigns. */
  expected: Article
  /** Rows written with the article (a history row): each an INSERT … SELECT … FROM written. */
  companions?: Prisma.Sql[]
  events: ArticleWriteEvent[]
}

// The API's instant format (Date#toISOString) for a timestamptz(3) of the written row.
const isoInstant = (column: string) => Prisma.raw(`to_char(written."${column}" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)

/**
 * One article write as one SQL statement: the article's INSERT or UPDATE, the rows that go with
 * it and its outbox events, as data-modifying CTEs. Run alone (commitArticleChange with
 * `oneStatement`) it needs no BEGIN and COMMIT and holds a connection for one round trip instead
 * of four or five (bench: writes); inside a transaction it is one statement of it. Everything
 * hangs on the article's row: when the write matches nothing (a concurrent writer moved the
 * version on), nothing else is written and the answer is undefined.
 *
 * An event carrying the record is written from `expected`, with the two instants the database
 * assigned taken from the row; the record is toArticleRecord's either way. The record of the
 * row read back is compared with it, and tests compare every write path's events with what
 * the API answers.
 */
export async function writeArticle(tx: SqlTransaction, emit: Emit, tenantId: string, write: ArticleWrite): Promise<Article | undefined> {
  const carriesRecord = write.events.map((event) => 'record' in event)
  // Most workflow moves carry no record (workflow.transitioned alone): no record is made for
  // them, nor the written row's compared with it; the route makes the one it answers with.
  const anyRecord = carriesRecord.includes(true)
  const expectedRecord = anyRecord ? toArticleRecord(write.expected) : undefined
  const events = toRecordedEvents(
    tenantId,
    withContentPurges(tenantId, write.events.map((event) => ({ kind: event.kind, occurredAt: event.occurredAt, data: 'record' in event ? expectedRecord! : event.data }))),
  )
  const outboxRows = events.map((event, index) => ({ ...event, stamped: carriesRecord[index] }))
  const companions = (write.companions ?? []).map((companion, index) => Prisma.sql`, ${Prisma.raw(`companion_${index}`)} AS (${companion})`)
  const statement = Prisma.sql`
    WITH written AS (${write.statement})
    ${companions.length > 0 ? Prisma.join(companions, ' ') : Prisma.empty}
    , outbox AS (
      INSERT INTO events (id, tenant_id, kind, occurred_at, data)
      SELECT e.id, e."tenantId", e.kind, e."occurredAt",
             CASE WHEN e.stamped THEN e.data || jsonb_build_object('created_at', ${isoInstant('createdAt')}, 'updated_at', ${isoInstant('updatedAt')}) ELSE e.data END
      FROM written, json_to_recordset(${JSON.stringify(outboxRows)}::json)
        AS e(id text, "tenantId" text, kind text, "occurredAt" timestamptz, data jsonb, stamped boolean)
    )
    SELECT * FROM written`
  // Prepared by its text where the transaction can (the writes' texts are few: one per kind of
  // change): parsing and planning it was much of the write's database work beside executing it.
  const [stored] = tx.$queryPrepared ? await tx.$queryPrepared<StoredArticle[]>(statement) : await tx.$queryRaw<StoredArticle[]>(statement)
  if (!stored) return undefined
  const article = toArticle(stored)
  if (!anyRecord) {
    emit.written(events)
    return article
  }
  const record = toArticleRecord(article)
  // Field by field: strings (a body of up to 1 MB) compare as they are, without serialising
  // both records on every write; only the arrays are serialised.
  const sent: Record<string, unknown> = { ...expectedRecord, created_at: record.created_at, updated_at: record.updated_at }
  const differing = Object.entries(record).filter(([field, value]) => (Array.isArray(value) ? JSON.stringify(value) !== JSON.stringify(sent[field]) : value !== sent[field]))
  if (differing.length > 0) {
    const fields = differing.map(([field]) => field)
    logger.error({ article_id: article.id, fields }, 'an article event carries a record that differs from the row written; writeArticle was given a wrong expected article')
  }
  emit.written(events.map((event, index) => (carriesRecord[index] ? { ...event, data: record } : event)))
  return article
}
