import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMigratedEmbeddedDatabase } from '../../tests/support/embedded-database.ts'
import { endGenericPlanPool, genericPlanPool } from './generic-plan-pool.ts'
import { preparedQuery } from './prepared-query.ts'

// A statement over one newsroom's articles whose generic plan PostgreSQL's `auto` mode never keeps:
// a LIMIT given as a parameter is costed as a tenth of the table.
const page = 'SELECT id FROM articles WHERE tenant_id = $1 ORDER BY published_at DESC NULLS LAST, created_at DESC, id DESC LIMIT $2'

describe('the generic-plan sibling of a pool', () => {
  const base = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 })
  afterAll(async () => {
    await endGenericPlanPool(base)
    await base.end()
  })

  it('on PostgreSQL, runs a prepared statement on one generic plan from its first run, while the pool it came from keeps auto', async () => {
    const generic = await genericPlanPool(base)
    expect(generic).not.toBe(base)
    expect(await genericPlanPool(base)).toBe(generic)
    for (let run = 0; run < 7; run++) {
      await preparedQuery(generic, 'page', page, ['ten_none', 50])
      await preparedQuery(base, 'page', page, ['ten_none', 50])
    }
    const plans = async (pool: pg.Pool) => (await pool.query<{ generic_plans: string; custom_plans: string }>("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'page-%'")).rows[0]!
    expect(await plans(generic)).toEqual({ generic_plans: '7', custom_plans: '0' })
    // Under auto the first five runs are custom plans whatever their costs.
    expect(Number((await plans(base)).custom_plans)).toBeGreaterThanOrEqual(5)
    expect((await base.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto')
  })

  it('compiles nothing with JIT, however high a generic plan is costed', async () => {
    const generic = await genericPlanPool(base)
    expect((await generic.query('SHOW jit')).rows[0].jit).toBe('off')
  })

  it('is ended with its pool, and made anew if asked again', async () => {
    const first = await genericPlanPool(base)
    await endGenericPlanPool(base)
    expect(first.ending || first.ended).toBe(true)
    const second = await genericPlanPool(base)
    expect(second).not.toBe(first)
    expect((await second.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('force_generic_plan')
  })
})

describe('on the embedded store', () => {
  let database: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
  let base: pg.Pool
  beforeAll(async () => {
    database = await startMigratedEmbeddedDatabase()
    base = new pg.Pool({ connectionString: database.url, max: 2 })
  }, 120_000)
  afterAll(async () => {
    await endGenericPlanPool(base)
    await base?.end()
    await database?.stop()
  })

  it('is the pool itself: PGlite serves every connection from one session and ignores start-up settings, so the session keeps auto', async () => {
    expect(await genericPlanPool(base)).toBe(base)
    expect((await base.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto')
    expect((await preparedQuery<{ id: string }>(base, 'page', page, ['ten_none', 50])).rows).toEqual([])
  })
})
