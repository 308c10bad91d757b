import { updateReadVersion } from '../../articles/change-current-version.ts'
import { sanitizeBody } from '../../articles/sanitize-body.ts'
import { db } from '../client.ts'

export const sanitiseBodiesMigration = 'sanitise_article_bodies'

/**
 * Brings bodies stored before sanitise-on-write under the allow-list. Walks all articles by id
 * in batches (memory stays flat however many there are); each body the sanitiser changes is
 * written as a normal update of the version that was read (version + 1, with its
 * article.updated event in the same transaction), so receivers learn of it like of any edit.
 * Safe to re-run and to run from two instances at once: a sanitised body sanitises to itself,
 * and a row changed meanwhile is skipped (its new body came through a write path, sanitised).
 */
export async function sanitiseStoredBodies(
  options: { batchSize?: number; afterBatch?: (progress: { scanned: number; changed: number }) => Promise<void> } = {},
): Promise<{ scanned: number; changed: number }> {
  const batchSize = options.batchSize ?? 200
  let scanned = 0
  let changed = 0
  let after = ''
  for (;;) {
    const batch = await db.article.findMany({ where: { id: { gt: after }, body: { not: null } }, orderBy: { id: 'asc' }, take: batchSize })
    if (batch.length === 0) break
    after = batch.at(-1)!.id
    scanned += batch.length
    for (const article of batch) {
      const clean = sanitizeBody(article.body)
      if (clean === article.body) continue
      const written = await updateReadVersion(article, { body: clean })
      if (written) changed++
    }
    await options.afterBatch?.({ scanned, changed })
  }
  return { scanned, changed }
}

export async function bodyBackfillCompleted(): Promise<boolean> {
  return (await db.dataMigration.findUnique({ where: { name: sanitiseBodiesMigration } })) !== null
}

/**
 * Runs the body backfill once per database to completion (`npm run db:migrate`, and the
 * server's background run, background-data-migrations.ts): skipped when it has completed before.
 */
export async function runDataMigrations(
  log: (line: string) => void = console.log,
  options: Parameters<typeof sanitiseStoredBodies>[0] = {},
): Promise<{ scanned: number; changed: number } | null> {
  if (await bodyBackfillCompleted()) return null
  const { scanned, changed } = await sanitiseStoredBodies(options)
  await db.dataMigration.upsert({ where: { name: sanitiseBodiesMigration }, create: { name: sanitiseBodiesMigration, changed }, update: {} })
  log(`Data migration ${sanitiseBodiesMigration}: ${changed} of ${scanned} stored bodies sanitised, each with an article.updated event.`)
  return { scanned, changed }
}
