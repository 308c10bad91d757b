// The in-process cost of a search page: `listArticles` as the API calls it, one client, each
// request with a new `updated_before` (so no answer is kept), against DATABASE_URL (a copy of the
// bench's seeded database). Prints p50/p90 and CPU per request of this process and of this
// database's PostgreSQL backends (from /proc, 10 ms ticks), per query; the page is rendered to
// JSON as app/v1/articles/route.ts renders it (HTTP, authentication and the cache are not counted).
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/search_bench npx tsx bench/search-cost.ts [requests]
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { sqlPool } from '../lib/db/client.ts'
import { listArticles } from '../lib/articles/list-articles.ts'
import { toListedArticleRecord } from '../lib/articles/search-articles.ts'
import { renderJson } from '../lib/api/conditional-response.ts'
import { pageRecord } from '../lib/pagination.ts'
import { listArticlesQuerySchema } from '../lib/articles/article-schemas.ts'
import { systemActor } from '../lib/tenancy/system-actor.ts'

const requests = Number(process.argv[2] ?? 60)
const queries = { '"riverside plan"': '"riverside plan"', 'rare word': createHash('md5').update('4242').digest('hex') }

function backendCpuMs(pids: number[]): number {
  let ticks = 0
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // gone
    }
  }
  return ticks * 10
}

async function main() {
  const [tenant] = (await sqlPool.query<{ id: string }>(`SELECT tenant_id AS id FROM articles GROUP BY tenant_id ORDER BY count(*) DESC LIMIT 1`)).rows
  const actor = (await systemActor(tenant!.id))!
  for (const [name, q] of Object.entries(queries)) {
    const ask = async (i: number) => {
      const page = await listArticles(actor, listArticlesQuerySchema.parse({ q, limit: 50, updated_before: new Date(Date.UTC(2100, 0, 1) + i).toISOString() }))
      renderJson(pageRecord(page, toListedArticleRecord))
      return page
    }
    for (let i = 0; i < 5; i++) await ask(1_000_000 + i)
    const pids = (await sqlPool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map((row) => row.pid)
    const node = process.cpuUsage()
    const pg = backendCpuMs(pids)
    const times: number[] = []
    let page
    for (let i = 0; i < requests; i++) {
      const started = performance.now()
      page = await ask(i)
      times.push(performance.now() - started)
    }
    const nodeUs = process.cpuUsage(node)
    const pgMs = backendCpuMs(pids) - pg
    times.sort((a, b) => a - b)
    const ids = createHash('sha256').update(page!.items.map((item) => item.id).join(',')).digest('hex').slice(0, 8)
    console.log(
      `${name}: p50 ${times[Math.floor(requests / 2)]!.toFixed(1)} ms, p90 ${times[Math.floor(requests * 0.9)]!.toFixed(1)} ms, CPU µs/req Node ${Math.round((nodeUs.user + nodeUs.system) / requests)} / PostgreSQL ${Math.round((pgMs * 1000) / requests)}; total ${page!.total}${page!.totalIsEstimate ? ' (estimate)' : ''}, ids ${ids}`,
    )
  }
  await sqlPool.end()
  process.exit(0)
}

void main()
