import { afterAll, describe, expect, it } from 'vitest'
import { db, sqlPool } from '../../lib/db/client.ts'
import { seedBenchData } from '../../bench/seed-bench-data.ts'
import { sanitizeBody } from '../../lib/articles/sanitize-body.ts'
import { runDataMigrations } from '../../lib/db/data-migrations/sanitise-stored-bodies.ts'

// The bench's bulk load (bench/seed-bench-data.ts) turns the articles' row triggers off and
// writes what they would have written itself, set-based. The bench's results stay comparable,
// and the service behaves on seeded data as on written data, only if that is exactly what the
// triggers write: this seeds the same newsroom twice, once through the triggers as they are now
// (the reference) and once in bulk, and compares everything the triggers derive.

afterAll(async () => {
  await db.$disconnect()
})

const articles = 200

/** A newsroom's rows with its own ids replaced by what they stand for (its ids differ by seeding). */
async function rowsOf(tenantId: string) {
  const query = async (sql: string) => (await sqlPool.query(sql, [tenantId])).rows.map((row) => JSON.stringify(row))
  const names = `
    d AS (SELECT id, name FROM departments WHERE tenant_id = $1),
    u AS (SELECT id, role::text AS role FROM users WHERE tenant_id = $1)`
  return {
    // Every column of the article but its ids: the search vector, media ids, timestamps, …
    articles: await query(`WITH ${names}
      SELECT substr(a.id, length('art_bench' || $1 || '_') + 1) AS n, d.name AS department, u.role AS author,
             to_jsonb(a) - 'id' - 'tenant_id' - 'department_id' - 'author_id' - 'change_xid' AS columns
      FROM articles a LEFT JOIN d ON d.id = a.department_id LEFT JOIN u ON u.id = a.author_id
      WHERE a.tenant_id = $1 ORDER BY a.id`),
    // Each article's revisions: every column but the random id and the transaction's time.
    revisions: await query(`WITH ${names}
      SELECT substr(r.article_id, length('art_bench' || $1 || '_') + 1) AS n, d.name AS department, u.role AS author,
             to_jsonb(r) - 'id' - 'tenant_id' - 'article_id' - 'department_id' - 'author_id' - 'created_at' AS columns
      FROM article_revisions r LEFT JOIN d ON d.id = r.department_id LEFT JOIN u ON u.id = r.author_id
      WHERE r.tenant_id = $1 ORDER BY r.article_id, r.number`),
    // The list totals as the service reads them: summed over shards.
    counts: await query(`WITH ${names}
      SELECT grain, bucket, status, coalesce(d.name, c.department_id) AS department, sum(n)::int AS n
      FROM article_counts c LEFT JOIN d ON d.id = c.department_id
      WHERE c.tenant_id = $1 GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4`),
    tagCounts: await query(`SELECT tag, status, sum(n)::int AS n FROM article_tag_counts WHERE tenant_id = $1 GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`),
    events: await query(`WITH ${names}
      SELECT substr(e.id, length('evt_bench' || $1 || '_') + 1) AS n, e.kind, e.occurred_at, e.sent_to_queue_at, e.created_at,
             replace(CASE WHEN d.name IS NULL THEN e.data ELSE jsonb_set(e.data, '{department_id}', to_jsonb(d.name)) END::text, $1, 'TENANT') AS data
      FROM events e LEFT JOIN d ON d.id = e.data->>'department_id'
      WHERE e.tenant_id = $1 ORDER BY e.id`),
    // What no second seeding can reproduce, checked on its own: each article stamped with the
    // transaction that wrote it, each revision id of the trigger's form.
    foreignStamps: Number((await sqlPool.query(`SELECT count(*) AS n FROM articles WHERE tenant_id = $1 AND change_xid::text::bigint % 4294967296 <> xmin::text::bigint`, [tenantId])).rows[0].n),
    oddRevisionIds: Number((await sqlPool.query(`SELECT count(*) AS n FROM article_revisions WHERE tenant_id = $1 AND id !~ '^rev_[0-9a-f]{32}$'`, [tenantId])).rows[0].n),
  }
}

const indexes = async () =>
  (await sqlPool.query(`SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition, indisvalid AS valid FROM pg_index
                        WHERE indrelid IN ('articles'::regclass, 'article_revisions'::regclass, 'events'::regclass) ORDER BY 1`)).rows

describe('the bench seeding', () => {
  // First: it needs a database with no articles yet.
  it('of an empty database records the body data migration done, its every body being one the sanitiser keeps', async () => {
    await seedBenchData(process.env.DATABASE_URL!, [{ name: 'clean-bodies', plan: 'standard', articles: 300 }])
    const { rows } = await sqlPool.query<{ body: string }>('SELECT body FROM articles')
    expect(rows).toHaveLength(300)
    expect(rows.filter(({ body }) => sanitizeBody(body) !== body)).toEqual([])
    // npm run db:migrate (and the bench) then skips the scan of every body.
    const logged: string[] = []
    expect(await runDataMigrations((line) => logged.push(line))).toBeNull()
    expect(logged).toEqual([])
  })

  it("writes in bulk exactly what the articles' triggers write", async () => {
    const indexesBefore = await indexes()
    const seededAt = (await sqlPool.query<{ now: Date }>('SELECT now()')).rows[0]!.now
    const sizes = (name: string) => [{ name, plan: 'enterprise' as const, articles, events: articles }]
    const [reference] = await seedBenchData(process.env.DATABASE_URL!, sizes('through-triggers'), { throughTriggers: true, now: seededAt })
    const [bulk] = await seedBenchData(process.env.DATABASE_URL!, sizes('bulk'), { now: seededAt })
    const seededUntil = (await sqlPool.query<{ now: Date }>('SELECT now()')).rows[0]!.now

    const expected = await rowsOf(reference!.id)
    const actual = await rowsOf(bulk!.id)
    expect(expected.articles).toHaveLength(articles)
    expect(expected.revisions).toHaveLength(articles)
    expect(expected.counts.length).toBeGreaterThan(20)
    expect(expected.tagCounts.length).toBeGreaterThan(20)
    expect(expected.events).toHaveLength(articles)
    // The reference is what it should be: published articles have search vectors and no media.
    expect(JSON.parse(expected.articles[3]!)).toMatchObject({ columns: { status: 'published', media_ids: [], search_vector: expect.stringContaining("'committee':") } })
    expect(expected.foreignStamps).toBe(0)
    expect(expected.oddRevisionIds).toBe(0)

    expect(actual.articles).toEqual(expected.articles)
    expect(actual.revisions).toEqual(expected.revisions)
    expect(actual.counts).toEqual(expected.counts)
    expect(actual.tagCounts).toEqual(expected.tagCounts)
    expect(actual.events).toEqual(expected.events)
    expect(actual.foreignStamps).toBe(0)
    expect(actual.oddRevisionIds).toBe(0)
    // The revisions carry their transaction's time, as the trigger's column default gives it.
    const { rows: [times] } = await sqlPool.query(`SELECT min(created_at) AS first, max(created_at) AS last FROM article_revisions WHERE tenant_id = $1`, [bulk!.id])
    expect(new Date(times.first).getTime()).toBeGreaterThanOrEqual(seededAt.getTime() - 1)
    expect(new Date(times.last).getTime()).toBeLessThanOrEqual(seededUntil.getTime() + 1)
    // The indexes dropped for the load are all back, as they were.
    expect(await indexes()).toEqual(indexesBefore)
  })

  it('still checks the foreign keys the row triggers would have checked', async () => {
    // A department of another newsroom's deletion is not something the seeding does; a dangling
    // department id is what a wrong range of ids would look like, and must fail the seeding.
    const { rows: [tenant] } = await sqlPool.query(`SELECT id FROM tenants WHERE slug = 'bench-bulk'`)
    await sqlPool.query(`BEGIN; SET LOCAL session_replication_role = replica; UPDATE articles SET department_id = 'dep_gone' WHERE id = (SELECT min(id) FROM articles WHERE tenant_id = '${tenant.id}'); COMMIT`)
    await expect(seedBenchData(process.env.DATABASE_URL!, [{ name: 'after-a-broken-row', plan: 'standard', articles: 10 }])).rejects.toThrow(/articles_department_id_fkey: 1 rows/)
  })
})
