/**
 * BENCH_CLUSTER=1 npm run bench: the rows of `npm run cluster` (three instances behind HAProxy,
 * reads on the streaming replica, Varnish before /content/v1) beside one of its instances
 * alone, and the time from a publication's answer to its purge being applied in Varnish.
 * Opt-in: the default bench is unchanged. Starts its own cluster on CLUSTER_PORT_BASE (default
 * 5200) and stops it after. Writes bench/results/cluster-<stamp>.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { load } from './load.ts'

const round = (value: number) => Math.round(value * 10) / 10
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

export async function benchCluster(): Promise<void> {
  process.env.CLUSTER_PORT_BASE ??= '5200'
  const { startCluster, stopCluster } = await import('../scripts/cluster.ts')
  const { clusterLayout } = await import('../scripts/cluster-layout.ts')
  const layout = clusterLayout()
  // lib/ reads these when it loads: the cluster's own primary and Redis.
  process.env.DATABASE_URL = layout.appEnv.DATABASE_URL
  process.env.REDIS_URL = layout.appEnv.REDIS_URL
  // The bench measures throughput, not the rate limiter: its instances get a budget it cannot reach.
  process.env.RATE_LIMIT_ENTERPRISE_PER_MINUTE ??= '100000000'
  await stopCluster()
  console.log(`[bench cluster] starting the cluster on ports from ${layout.base}…`)
  await startCluster()
  try {
    const { createTestTenant } = await import('../tests/support/fixtures.ts')
    const { createContentKey } = await import('../lib/content/content-keys.ts')
    const { apiClient } = await import('../tests/support/api-client.ts')
    const newsroom = await createTestTenant({ plan: 'enterprise' })
    const token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
    const contentKey = (await createContentKey(newsroom.actor('admin'), 'Bench site')).key
    const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
    const varnish = `http://127.0.0.1:${layout.ports.varnish}`
    const single = `http://127.0.0.1:${layout.ports.apps[0]}`
    const editor = apiClient(haproxy, token)

    const publish = async (id: string) => {
      for (const to_state of ['in-review', 'approved', 'published']) {
        const answer = await editor.post(`/v1/articles/${id}/transitions`, { to_state })
        if (answer.status !== 200) throw new Error(`publishing ${id}: ${answer.status} ${answer.text}`)
      }
    }
    const ids: string[] = []
    for (let i = 0; i < 60; i++) {
      const created = (await editor.post('/v1/articles', { headline: `Bench story ${i}`, lede: 'A lede long enough to look like one.', body: '<p>Body text of the story, a few words.</p>' })).body
      await publish(created.article_id)
      ids.push(created.article_id)
    }

    const contentPath = `/content/v1/articles/${ids[0]}?key=${contentKey}`
    const rows = []
    const scenarios: [string, string, string, Record<string, string>?][] = [
      ['content article, Varnish (hit)', varnish, contentPath],
      ['content article, HAProxy → app (Varnish miss)', haproxy, contentPath],
      ['/v1/articles?limit=50, HAProxy → 3 apps, replica reads', haproxy, '/v1/articles?limit=50'],
      ['/v1/articles?limit=50, one instance, replica reads', single, '/v1/articles?limit=50'],
      ['/v1/articles/{id}, HAProxy → 3 apps, replica reads', haproxy, `/v1/articles/${ids[1]}`],
      ['/v1/articles/{id}, one instance, replica reads', single, `/v1/articles/${ids[1]}`],
    ]
    for (const [name, url, requestPath] of scenarios) {
      console.log(`[bench cluster] ${name}`)
      const result = await load({ url, method: 'GET', path: requestPath, token, duration: Number(process.env.BENCH_SECONDS ?? 8) })
      rows.push({ name, rps: round(result.rps), p50: result.p50, p99: result.p99, errors: result.errors, requests: result.requests })
    }

    // Publish → purge: a draft's page is cached as a 404 in Varnish; the time from the
    // publication's answer until Varnish serves the article is the purge's latency (plus one poll).
    console.log('[bench cluster] publish → purge')
    const latencies: number[] = []
    for (let i = 0; i < 40; i++) {
      const draft = (await editor.post('/v1/articles', { headline: `Purge probe ${i}` })).body
      const page = `${varnish}/content/v1/articles/${draft.article_id}?key=${contentKey}`
      for (const to_state of ['in-review', 'approved']) await editor.post(`/v1/articles/${draft.article_id}/transitions`, { to_state })
      await fetch(page).then((r) => r.text())
      const cached = await fetch(page)
      await cached.text()
      if (cached.status !== 404) throw new Error(`the draft's page should be a cached 404, got ${cached.status}`)
      const answer = await editor.post(`/v1/articles/${draft.article_id}/transitions`, { to_state: 'published' })
      const answeredAt = performance.now()
      if (answer.status !== 200) throw new Error(`publishing: ${answer.status}`)
      for (let polls = 0; ; polls++) {
        const seen = await fetch(page)
        await seen.text()
        if (seen.status === 200) break
        if (polls > 5_000) throw new Error('the purge never arrived')
      }
      latencies.push(performance.now() - answeredAt)
    }
    latencies.sort((a, b) => a - b)
    const purge = { samples: latencies.length, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), maxMs: round(latencies.at(-1)!) }

    const report = [
      `# Cluster bench (${new Date().toISOString().slice(0, 16)}; 3 instances, HAProxy, Varnish, PostgreSQL primary + replica, Redis; one machine)`,
      '',
      '| endpoint | req/s | p50 ms | p99 ms | errors |',
      '|---|---:|---:|---:|---:|',
      ...rows.map((row) => `| ${row.name} | ${row.rps} | ${row.p50} | ${row.p99} | ${row.errors} |`),
      '',
      `Publish → purge applied in Varnish (from the publication's answer to the first poll that sees the article): p50 ${purge.p50Ms} ms, p99 ${purge.p99Ms} ms, max ${purge.maxMs} ms over ${purge.samples} publications.`,
    ].join('\n')
    console.log('\n' + report)
    const resultsDir = path.join(import.meta.dirname, 'results')
    mkdirSync(resultsDir, { recursive: true })
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')
    writeFileSync(path.join(resultsDir, `cluster-${stamp}.json`), JSON.stringify({ rows, purge }, null, 2) + '\n')
    writeFileSync(path.join(resultsDir, `cluster-${stamp}.md`), report + '\n')
    const { db } = await import('../lib/db/client.ts')
    await db.$disconnect()
  } finally {
    await stopCluster()
  }
}
