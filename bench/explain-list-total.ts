/**
 * `tsx bench/explain-list-total.ts <database> <published_before> [filter JSON]`: the plans
 * (EXPLAIN (ANALYZE, BUFFERS)) of a list's total for the bench's large newsroom, counted over
 * the archive as before the article_counts migration and summed from the kept counts as now,
 * each with its warm time and answer, so the two can be compared on one database.
 */
import pg from 'pg'
import { countFromBuckets } from '../lib/articles/article-counts.ts'

async function main() {
  const [database, before, filterJson] = process.argv.slice(2)
  if (!database || !before) throw new Error('usage: tsx bench/explain-list-total.ts <database> <published_before> [filter JSON]')
  const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:5432/${database}` })
  await client.connect()
  try {
    const { rows: [tenant] } = await client.query<{ id: string }>(`SELECT id FROM tenants WHERE slug = 'bench-large'`)
    const filter = JSON.parse(filterJson ?? '{}') as { status?: string; department_id?: string }
    let summed: { text: string; values: unknown[] } | undefined
    const capture = { rows: async (text: string, values: unknown[] = []) => ((summed = { text, values: [tenant!.id, ...values] }), [{ total: '0' }]) }
    await countFromBuckets(capture as never, { published_before: before, ...filter } as never)
    const conditions = ['tenant_id = $1', 'published_at < $2', ...(filter.status ? [`status = '${filter.status}'`] : []), ...(filter.department_id ? [`department_id = '${filter.department_id}'`] : [])]
    const variants: [string, string, unknown[]][] = [
      ['before: count(*) over the archive', `SELECT count(*)::int AS total FROM articles WHERE ${conditions.join(' AND ')}`, [tenant!.id, new Date(before)]],
      ['now: kept counts + the edge hour', summed!.text, summed!.values],
    ]
    for (const [label, text, values] of variants) {
      for (let i = 0; i < 2; i++) await client.query(text, values)
      const started = performance.now()
      const result = await client.query(text, values)
      const ms = performance.now() - started
      const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values)
      console.log(`\n### ${label}: ${JSON.stringify(result.rows[0])}, ${ms.toFixed(1)} ms warm\n\n${text}\n`)
      console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'))
    }
  } finally {
    await client.end()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
