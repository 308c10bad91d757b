import type { Article } from '../db/generated/client.ts'
import type { ArticleStatus } from '../db/generated/enums.ts'
import { PreconditionFailedError } from '../errors.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'

// A 412 that only says "it changed" leaves a person guessing whether to click again, and the
// click they had in mind may now do something else entirely (send a live story back to draft).
// So the refusal says what happened after the version the client saw, who did it and when,
// from the rows that record it: history rows and revisions both carry the version they made.

/** How many of the newest changes a refusal names; older ones are counted. */
const namedChanges = 3

// A revision's fields as the portal names them.
const fieldWords: Record<string, string> = { headline: 'headline', lede: 'lede', body: 'text', department_id: 'department', tags: 'tags', author_id: 'author' }

type Change = { version: number; at: Date; by: string | null; what: string }

const stateWords: Record<ArticleStatus, string> = { draft: 'a draft', in_review: 'in review', approved: 'approved', published: 'published', archived: 'archived' }

/** "22:41 UTC", with the day when it was not today (UTC) and the year when not this year. */
function utcMoment(at: Date, now: Date): string {
  const time = `${at.toISOString().slice(11, 16)} UTC`
  if (at.toISOString().slice(0, 10) === now.toISOString().slice(0, 10)) return time
  const day = at.toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', ...(at.getUTCFullYear() !== now.getUTCFullYear() && { year: 'numeric' }) })
  return `${time} on ${day}`
}

function moveWords(row: { fromState: ArticleStatus; toState: ArticleStatus; publishAt: Date | null; scheduleCancelled: boolean; actor: unknown }, now: Date): string {
  if (row.scheduleCancelled) return 'taken off the publication schedule'
  if (row.toState === 'published' && row.publishAt) return `scheduled to publish at ${utcMoment(row.publishAt, now)}`
  if (row.toState === 'published') return row.actor ? 'published' : 'published on schedule'
  if (row.toState === 'in_review') return row.fromState === 'draft' ? 'submitted for review' : 'returned to review'
  if (row.toState === 'draft') return row.fromState === 'published' ? 'unpublished' : row.fromState === 'archived' ? 'restored to draft' : 'sent back to draft'
  return row.toState
}

// Changes by one person this close together read as one ("approved and published").
const oneSittingMs = 2 * 60_000

/** "approved and published by Edith Hale at 22:41 UTC": one person's changes in a row, close together, read as one, at the time of the last. */
function sentences(changes: Change[], now: Date): string[] {
  const groups: Change[][] = []
  for (const change of changes) {
    const group = groups.at(-1)
    if (group && group[0]!.by === change.by && change.at.getTime() - group[0]!.at.getTime() <= oneSittingMs) group.push(change)
    else groups.push([change])
  }
  return groups.map((group) => `${group.map((change) => change.what).join(' and ')}${group[0]!.by ? ` by ${group[0]!.by}` : ''} at ${utcMoment(group.at(-1)!.at, now)}`)
}

/** The version the client saw: the newest of those it sent that is older than the article's. */
function seenVersion(expected: number | readonly number[], current: number): number | undefined {
  const older = (typeof expected === 'number' ? [expected] : expected).filter((version) => version < current)
  return older.length > 0 ? Math.max(...older) : undefined
}

/**
 * The 412 for a move whose caller saw the article in another state than it is in now (their
 * `expected_state`): a confirmation answered for "in review" never moves a published article.
 */
export function unexpectedStateRefusal(current: Article, expected: ArticleStatus, now = new Date()): PreconditionFailedError {
  const scheduled = current.status === 'approved' && current.scheduledPublishAt ? `, scheduled to publish at ${utcMoment(current.scheduledPublishAt, now)}` : ''
  return new PreconditionFailedError(
    `This article is ${stateWords[current.status]}${scheduled} now (version ${current.version}), not ${stateWords[expected]} as your move expected: nothing was moved. Look at it again and decide whether the move still applies.`,
  )
}

/**
 * The 412 for a change pinned to a version that is no longer current: what happened since
 * ("it was approved and published by Edith Hale at 22:41 UTC"), what the article is now, and
 * what to do. Every pinned change gets it, whichever door it came through (/v1 If-Match,
 * the portal's saves and moves).
 */
export async function staleVersionRefusal(current: Article, expected: number | readonly number[], now = new Date()): Promise<PreconditionFailedError> {
  const seen = seenVersion(expected, current.version)
  const tdb = tenantDb(current.tenantId)
  const since = { articleId: current.id, version: seen === undefined ? current.version : { gt: seen } }
  const actor = { select: { name: true } } as const
  const [moves, revisions, editor] = await Promise.all([
    tdb.articleTransition.findMany({ where: since, include: { actor }, orderBy: { version: 'desc' }, take: namedChanges + 1 }),
    tdb.articleRevision.findMany({ where: since, select: { version: true, createdAt: true, fields: true, actor }, orderBy: { version: 'desc' }, take: namedChanges + 1 }),
    current.editedById ? tdb.user.findUnique({ where: { id: current.editedById }, select: { name: true } }) : null,
  ])
  const changes: Change[] = [
    ...moves.map((row) => ({ version: row.version!, at: row.createdAt, by: row.actor?.name ?? null, what: moveWords(row, now) })),
    ...revisions.map((row) => ({ version: row.version, at: row.createdAt, by: row.actor?.name ?? null, what: `edited (${row.fields.map((field) => fieldWords[field] ?? field).join(', ')})` })),
  ]
  // A change that keeps no row (a slug or an unchanged save) was the last editor's, when it is the newest.
  if (!changes.some((change) => change.version === current.version)) {
    changes.push({ version: current.version, at: current.updatedAt, by: editor?.name ?? null, what: 'changed' })
  }
  changes.sort((a, b) => a.version - b.version)
  const named = changes.slice(-namedChanges)
  const earlier = (seen === undefined ? 0 : current.version - seen) - named.length
  const what = `${earlier > 0 ? `after ${earlier} earlier ${earlier === 1 ? 'change' : 'changes'}, ` : ''}it was ${sentences(named, now).join(', then ')}`
  const scheduled = current.status === 'approved' && current.scheduledPublishAt ? `, scheduled to publish at ${utcMoment(current.scheduledPublishAt, now)}` : ''
  const state = `it is now ${stateWords[current.status]}${scheduled}, at version ${current.version}`
  const opening = seen === undefined ? `This article is not at the version you sent` : `This article changed after the version you saw (${seen})`
  return new PreconditionFailedError(`${opening}: ${what}; ${state}. Look at it again and decide whether your change still applies.`)
}
