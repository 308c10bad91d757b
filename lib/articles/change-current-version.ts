import type { Article } from '../db/generated/client.ts'
import { ConflictError, NotFoundError } from '../errors.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import { commitArticleChange } from './commit-article-change.ts'
import { updateOfReadArticle, type ArticleChanges } from './article-writes.ts'
import { writeArticle } from './article-write-statement.ts'
import { assertMediaPublishable, imagesToJudgeForWrite } from '../media/publishable-media.ts'
import { staleVersionRefusal } from './stale-version-refusal.ts'
import { judgingVersion, recoveredJudgedVersion } from '../events/idempotent-unit.ts'
import { leaseRefusal, lockFromJson, liveLockExpression, recordLockOverride, type ArticleLock, type LeaseWriter } from './edit-lease.ts'

// A blind change (no If-Match) is last-writer-wins: it is re-judged against each newer version
// until the rules accept or refuse it, never refused for losing races. Every lost round means
// another writer's change committed, so concurrent writers all land (N of them need at most N
// rounds); the cap only stops one request from spinning under a flood no client could cause
// within its rate limit.
const maxBlindRounds = 200

/**
 * The version(s) of an article a caller saw and means to change (an If-Match header's ETags, or
 * the version the portal's editor loaded): if none of them is current, the change is refused
 * with 412 rather than applied over someone else's.
 */
export type ExpectedVersion = number | readonly number[]

function isExpected(expected: ExpectedVersion, version: number): boolean {
  return typeof expected === 'number' ? expected === version : expected.includes(version)
}

/**
 * Applies a change to an article as it is now. `apply` judges the version it is given (and may
 * refuse by throwing) and writes only to that version, answering undefined when a concurrent
 * writer got there first. Then the change is judged again against the new version — unless the
 * caller pinned the version it saw (`expectedVersion`): that is a 412. Without a pin it goes on
 * until `apply` writes or refuses (last writer wins).
 *
 * Every write to an article comes through here, so here is where someone else's live edit lease
 * refuses it (409 article_locked), whichever door it came through, unless the writer said
 * override_lock, which is then recorded (lib/articles/edit-lease.ts).
 */
export async function changeCurrentVersion<Result>(
  tenantId: string,
  articleId: string,
  expectedVersion: ExpectedVersion | undefined,
  writer: LeaseWriter,
  apply: (current: Article) => Promise<Result | undefined>,
): Promise<Result> {
  // A retry that recovers a committed first attempt (its Idempotency-Key) judges the version the
  // first attempt judged, whose change (recorded on the key) commitChange then returns: the
  // lease and the pin were passed then, and the article as that change left it would refuse
  // the change as already made (break80).
  const judged = recoveredJudgedVersion()
  if (judged !== undefined) {
    const result = await apply(judged as Article)
    if (result !== undefined) return result
  }
  for (let attempt = 1; ; attempt++) {
    const { article: current, lock } = await readArticle(tenantId, articleId)
    const { overridden } = leaseRefusal(lock, writer)
    // A stale pin is refused with what happened since (who, what, when), not only that something did.
    if (expectedVersion !== undefined && !isExpected(expectedVersion, current.version)) throw await staleVersionRefusal(current, expectedVersion)
    const result = await judgingVersion(current, () => apply(current))
    if (result !== undefined) {
      if (overridden && writer.userId) await recordLockOverride(tenantId, articleId, writer.userId, overridden)
      return result
    }
    if (expectedVersion !== undefined) throw await staleVersionRefusal((await readArticle(tenantId, articleId)).article, expectedVersion)
    if (attempt >= maxBlindRounds) throw new ConflictError('concurrent_update', 'The article is being changed by others right now; retry in a moment.')
  }
}

/** The article as it is now, with its live edit lease (one statement). */
async function readArticle(tenantId: string, articleId: string): Promise<{ article: Article; lock: ArticleLock | null }> {
  const [stored] = await tenantSql(tenantId).rows<StoredArticle & { lock: ArticleLock | null }>(
    `SELECT ${articleColumns}, ${liveLockExpression('articles')} AS lock FROM articles WHERE tenant_id = $1 AND id = $2`,
    [articleId, new Date()],
    // Planning this read by id was four times its execution (0.22 against 0.06 ms): prepared,
    // PostgreSQL keeps one generic plan (the primary key's) per connection.
    { prepare: true },
  )
  if (!stored) throw new NotFoundError('article', articleId)
  const { lock, ...row } = stored
  return { article: toArticle(row), lock: lockFromJson(lock) }
}

/**
 * Writes `data` to the version of the article that was read, with its article.updated event;
 * undefined when a concurrent writer changed it first.
 */
export async function updateReadVersion(
  current: Article,
  data: ArticleChanges,
): Promise<Article | undefined> {
  // Every content write to an article comes here: a live article may not be made to show an
  // image publishing would refuse (no alt text, under embargo, licence over). Judged in the
  // write's transaction on the images' locked rows, so a deletion or an edit of them cannot slip
  // between the judgement and the write; a write that brings no image into view stays one
  // statement. Only the version we read may be changed: a concurrent writer makes this match
  // nothing, and the change is judged again against the new version.
  const judged = imagesToJudgeForWrite(current, { body: data.body, featuredMediaId: data.featuredMediaId })
  return commitArticleChange(
    current.tenantId,
    async (tx, emit) => {
      if (judged.length > 0) await assertMediaPublishable(current.tenantId, judged, new Date(), tx)
      return writeArticle(tx, emit, current.tenantId, { ...updateOfReadArticle(current, data), events: [{ kind: 'article.updated', record: true }] })
    },
    { oneStatement: judged.length === 0 },
  )
}
