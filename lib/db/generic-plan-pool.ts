import pg from 'pg'
import { hearConnectionErrors } from './heard-errors.ts'
import { processSingleton } from '../process-singleton.ts'

/**
 * A sibling of a pool whose connections run with `plan_cache_mode = force_generic_plan`, for
 * prepared statements whose plan is the same whatever their values and which PostgreSQL would
 * otherwise plan again on every run.
 *
 * Why: PostgreSQL keeps a prepared statement's generic plan only when that is costed no higher
 * than the custom plans it made. For a statement over one newsroom's articles the generic plan
 * is costed for an average newsroom (the table's rows over its newsrooms), so it loses, though
 * its shape is the same, and the statement is planned on every run: the walk of a search's
 * newest matches took 0.23-0.26 ms to plan and 0.16 ms to run for a rare word at 1,000,000
 * articles (pg_stat_statements), and its generic plan is the same index walk (EXPLAIN under
 * force_generic_plan: 0.025 ms to plan). plan_cache_mode is a setting of the session, read at
 * each run, so it cannot be given to one statement; a connection of its own can carry it from
 * its start-up, and the connections every other statement uses keep `auto`.
 *
 * The embedded store (PGlite) serves all its connections from one session and ignores start-up
 * settings: there `SHOW plan_cache_mode` says `auto` on the sibling, which is then not used.
 */

type Sibling = { pool: pg.Pool; usable: Promise<boolean> }

const siblings = processSingleton('generic-plan pools', () => new WeakMap<pg.Pool, Sibling>())

// Fewer than the pool's own: only the statements asked to run generic use them.
const siblingSize = () => Number(process.env.DATABASE_GENERIC_POOL_SIZE ?? 4)

/** The sibling of `base` with generic plans, or `base` itself where the database cannot give one. */
export async function genericPlanPool(base: pg.Pool): Promise<pg.Pool> {
  let sibling = siblings.get(base)
  if (!sibling) {
    // Without JIT: a generic plan costs a LIMIT given as a parameter as a tenth of the table, which
    // passes jit_above_cost, and the feed's first page then spent 11.5 ms compiling on every run
    // to read 50 index entries in 0.3 ms (EXPLAIN ANALYZE at 1,000,000 articles).
    const pool = new pg.Pool({ ...base.options, max: siblingSize(), options: '-c plan_cache_mode=force_generic_plan -c jit=off' })
    // An administrator's termination (a restart, a dropped test database) is reported by the
    // base pool's own connections already; said again here for every sibling it was noise.
    pool.on('error', (error) => {
      if ((error as { code?: string }).code !== '57P01') console.warn(`[db] an idle generic-plan connection failed: ${error.message}`)
    })
    hearConnectionErrors(pool)
    const usable = pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode').then(
      ({ rows }) => rows[0]?.plan_cache_mode === 'force_generic_plan',
      () => {
        // The database was unreachable: ask again next time rather than give up on the sibling.
        siblings.delete(base)
        return false
      },
    )
    sibling = { pool, usable }
    siblings.set(base, sibling)
    void usable.then((ok) => {
      if (!ok) void pool.end().catch(() => undefined)
    })
  }
  return (await sibling.usable) ? sibling.pool : base
}

/** Ends the sibling of a pool that is being ended. */
export async function endGenericPlanPool(base: pg.Pool): Promise<void> {
  const sibling = siblings.get(base)
  if (!sibling) return
  siblings.delete(base)
  if (await sibling.usable) await sibling.pool.end().catch(() => undefined)
}
