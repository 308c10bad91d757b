import type { Article } from '../db/generated/client.ts'
import { NotFoundError } from '../errors.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import { liveLockExpression, lockFromJson, type ArticleLock } from './edit-lease.ts'

/** An article with its live edit lease (`lock`), as one article's record shows it. */
export type ArticleWithLock = Article & { lock: ArticleLock | null }

type StoredWithLock = StoredArticle & { lock: ArticleLock | null }

/** The newsroom's article, or a 404: another newsroom's id looks exactly like a missing one. */
export async function getArticle(actor: Actor, articleId: string): Promise<ArticleWithLock> {
  assertCan(actor, 'articles:read')
  const article = await readArticle(actor.tenant.id, articleId)
  if (!article) throw new NotFoundError('article', articleId)
  return article
}

/**
 * Whether one article's record may change with no write to the article: it shows a live edit
 * lease, which lapses by the clock and whose renewals move its end without advancing the
 * newsroom's generation (edit-lease.ts). Such an answer is served but not kept
 * (response-cache.ts `transient`): kept, a lapsed lease was shown as live and a renewal's new
 * end was hidden for up to 30 s (break79).
 */
export function recordChangesByItself(article: ArticleWithLock): boolean {
  return article.lock !== null
}

/**
 * The newsroom's article by id, or undefined, read together with the others asked for in this
 * turn (readTogether): for callers that decide themselves what a reader may see of it (the
 * public content API shows only published ones).
 */
export async function readArticle(tenantId: string, articleId: string): Promise<ArticleWithLock | undefined> {
  const row = await readTogether(tenantId, articleId)
  if (!row) return undefined
  const { lock, ...stored } = row
  return { ...toArticle(stored), lock: lockFromJson(lock) }
}

// The lease is read in the same statement (an index lookup by primary key), so the record's
// `lock` costs no round trip of its own.
const columns = `${articleColumns}, ${liveLockExpression('articles', 'now()')} AS lock`

type Waiting = { resolve: (row: StoredWithLock | undefined) => void; reject: (error: unknown) => void }
type Batch = Map<string, Waiting[]>
const batches = new Map<string, Batch>()

/**
 * Reads asked for in the same turn of the event loop, for one newsroom, go to the database as
 * one statement: under load, many requests resume together (their rate-limit answers arrive in
 * one read from Redis), and one round trip and one pooled connection for all of them costs the
 * server and the database much less than one each (bench: cold get-by-id). Raw SQL through
 * tenantSql rather than Prisma, whose client did the same batching at three times the CPU.
 */
function readTogether(tenantId: string, articleId: string): Promise<StoredWithLock | undefined> {
  return new Promise((resolve, reject) => {
    let batch = batches.get(tenantId)
    if (!batch) {
      const started: Batch = new Map()
      batch = started
      batches.set(tenantId, started)
      setImmediate(() => {
        batches.delete(tenantId)
        void readBatch(tenantId, started)
      })
    }
    const waiting = batch.get(articleId)
    if (waiting) waiting.push({ resolve, reject })
    else batch.set(articleId, [{ resolve, reject }])
  })
}

async function readBatch(tenantId: string, batch: Batch): Promise<void> {
  try {
    const ids = [...batch.keys()]
    const rows =
      ids.length === 1
        ? await tenantSql(tenantId).rows<StoredWithLock>(`SELECT ${columns} FROM articles WHERE tenant_id = $1 AND id = $2`, ids)
        : await tenantSql(tenantId).rows<StoredWithLock>(`SELECT ${columns} FROM articles WHERE tenant_id = $1 AND id = ANY($2::text[])`, [ids])
    const byId = new Map(rows.map((row) => [row.id, row]))
    for (const [id, waiting] of batch) for (const { resolve } of waiting) resolve(byId.get(id))
  } catch (error) {
    for (const waiting of batch.values()) for (const { reject } of waiting) reject(error)
  }
}
