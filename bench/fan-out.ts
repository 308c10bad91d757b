import type pg from 'pg'
import type { startFakeInngest } from '../tests/support/fake-inngest.ts'

type FakeInngest = Awaited<ReturnType<typeof startFakeInngest>>

export type FanOutResult = { subscriptions: number; runs: number; p50Ms: number; maxMs: number; allMs: number[]; deliveriesPerRun: number }

/**
 * One article.created event fanned out to 100 subscriptions, `runs` times after one warm-up: the service's own
 * /api/inngest endpoint, driven by the stand-in executor the way Inngest drives it, until all
 * 100 delivery events have reached the queue. Deliveries themselves are not run.
 */
export async function measureFanOut(options: { appUrl: string; fakeInngest: FakeInngest; pool: pg.Pool; tenant: { id: string; token: string }; runs?: number }): Promise<FanOutResult> {
  const { appUrl, fakeInngest, pool, tenant } = options
  const runs = options.runs ?? 10
  const subscriptions = 100
  const owner = (await pool.query(`SELECT id FROM users WHERE tenant_id = $1 AND role = 'admin' LIMIT 1`, [tenant.id])).rows[0].id as string
  await pool.query(
    `INSERT INTO webhook_subscriptions (id, tenant_id, url, events, secret_encrypted, owner_id, updated_at)
     SELECT 'whk_bench_' || n, $1, 'https://hooks.example/newsroom?n=' || n, ARRAY['article.created'], 'unused-by-the-fan-out', $2, now()
     FROM generate_series(1, $3::int) AS n`,
    [tenant.id, owner, subscriptions],
  )

  const elapsed: number[] = []
  let deliveriesPerRun = 0
  // Run 0 warms the endpoint (first compile of the function's code paths) and is not counted,
  // as the load phases warm up before they measure.
  for (let run = 0; run <= runs; run++) {
    const created = await fetch(`${appUrl}/v1/articles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ headline: `Fan-out ${run}` }),
    })
    const articleId = ((await created.json()) as { article_id: string }).article_id
    const [event] = await fakeInngest.waitForEvents((candidate) => candidate.name === 'newsroom/article.created' && candidate.data?.data?.article_id === articleId)
    const started = performance.now()
    const outcome = await fakeInngest.runFunction(appUrl, 'newsroom-fan-out-event', event!)
    const enqueued = await fakeInngest.waitForEvents((candidate) => candidate.name === 'newsroom/webhook.delivery_requested' && candidate.data.event_id === event!.id, subscriptions)
    if (run > 0) elapsed.push(Math.max(...enqueued.map((candidate) => candidate.receivedAt)) - started)
    deliveriesPerRun = (outcome.output as { deliveries: number }).deliveries
  }
  elapsed.sort((a, b) => a - b)
  return { subscriptions, runs, p50Ms: elapsed[Math.floor(runs / 2)]!, maxMs: elapsed[runs - 1]!, allMs: elapsed.map(Math.round), deliveriesPerRun }
}
