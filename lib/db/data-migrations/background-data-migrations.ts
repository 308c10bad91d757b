import { setTimeout as sleep } from 'node:timers/promises'
import { logger } from '../../ops/logger.ts'
import { backfillState } from './backfill-state.ts'
import { deferredIndexes, ensureDeferredIndex, type DeferredIndex } from './deferred-indexes.ts'
import { runDataMigrations, sanitiseBodiesMigration } from './sanitise-stored-bodies.ts'

const retryAfterFailureMs = 30_000

/**
 * The server's start: the body backfill runs here, in batches, while the instance serves,
 * instead of before it listens (1.1M bodies took 3.7 minutes). The instance is correct
 * meanwhile: every write path sanitises what it stores, and until this process has seen the
 * backfill recorded as complete every body it renders is sanitised on the way out
 * (toArticleRecord), so a body stored before sanitise-on-write is never served as it is.
 * /readyz stays ready and reports the run (lib/ops/readiness.ts). Several instances may run it
 * side by side: a clean body sanitises to itself and a row changed meanwhile is skipped.
 *
 * Between batches it waits at least as long as the batch took (and DATA_MIGRATION_PAUSE_MS), so
 * the backfill takes at most half of a core from requests; DATA_MIGRATION_BATCH_SIZE sets the batch.
 * `npm run db:migrate` runs the same backfill to completion, without pauses.
 */
export function startDataMigrationsInBackground(): Promise<void> {
  const state = backfillState
  if (state.running) return state.running
  // Before the first await: a request served while the completion check is in flight sanitises too.
  state.bodiesMayBeUnclean = true
  const batchSize = Number(process.env.DATA_MIGRATION_BATCH_SIZE ?? 200)
  const minimumPauseMs = Number(process.env.DATA_MIGRATION_PAUSE_MS ?? 0)
  state.running = (async () => {
    for (const index of deferredIndexes) await buildDeferredIndex(index)
    for (;;) {
      const report = { name: sanitiseBodiesMigration, state: 'running' as const, scanned: 0, changed: 0, started_at: new Date().toISOString(), finished_at: null, error: null }
      let batchStarted = performance.now()
      try {
        const result = await runDataMigrations((line) => logger.info({ data_migration: sanitiseBodiesMigration }, line), {
          batchSize,
          afterBatch: async ({ scanned, changed }) => {
            state.report = { ...report, scanned, changed }
            const took = performance.now() - batchStarted
            await sleep(Math.max(took, minimumPauseMs), undefined, { ref: false })
            batchStarted = performance.now()
          },
        })
        // null: completed before, by an earlier start, another instance or db:migrate.
        state.report = result ? { ...report, ...result, state: 'done', finished_at: new Date().toISOString() } : null
        state.bodiesMayBeUnclean = false
        return
      } catch (error) {
        const message = (error as Error).message
        state.report = { ...(state.report ?? report), state: 'failed', error: message }
        logger.error({ data_migration: sanitiseBodiesMigration, err: message }, `the data migration failed; bodies stay sanitised on read, and it runs again in ${retryAfterFailureMs / 1000} s`)
        await sleep(retryAfterFailureMs, undefined, { ref: false })
      }
    }
  })()
  return state.running
}

/**
 * An index the migration left to the server (a big archive, deferred-indexes.ts): built before
 * the body backfill, reported by /readyz while it is built. A failure is logged and tried again
 * at the next start; its queries stay exact without it, only slower.
 */
async function buildDeferredIndex(index: DeferredIndex): Promise<void> {
  const state = backfillState
  const report = { name: index.migration, state: 'running' as const, scanned: 0, changed: 0, started_at: new Date().toISOString(), finished_at: null, error: null }
  try {
    const built = await ensureDeferredIndex(index, () => (state.report = report))
    if (built) {
      state.report = { ...report, state: 'done', changed: 1, finished_at: new Date().toISOString() }
      logger.info({ data_migration: index.migration }, `built ${index.name}, ${index.purpose}`)
    }
  } catch (error) {
    const message = (error as Error).message
    state.report = { ...report, state: 'failed', error: message }
    logger.error({ data_migration: index.migration, err: message }, `could not build ${index.name}, ${index.purpose}; its queries stay exact but slower, and the next start tries again`)
  }
}
