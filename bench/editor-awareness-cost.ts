/**
 * What open editors cost the service (issue 29): every open article page polls `watch` every 3 s,
 * and an editor with unsaved edits renews its lease every 30 s. Measured in-process, as
 * request-log-entry-cost.ts is: `tsx bench/editor-awareness-cost.ts` (DATABASE_URL of a migrated
 * database, REDIS_URL as in production) calls the domain functions the procedures call, and
 * prints the service's CPU per call and what 200 open editors (all of them editing: the worst
 * case) ask of it per second, as JSON. The tRPC and HTTP layers around each call are not
 * counted; `npm run bench`'s load runs measure those for the API.
 */
import { createId } from '../lib/ids.ts'
import { db } from '../lib/db/client.ts'
import { claimEditLease, leaseHeartbeatSeconds, watchIntervalSeconds } from '../lib/articles/edit-lease.ts'
import { watchArticle } from '../lib/articles/watch-article.ts'
import type { Actor } from '../lib/tenancy/actor.ts'

const editors = 200
const calls = 4_000

const tenant = await db.tenant.create({ data: { id: createId('ten'), name: 'Awareness bench', slug: `awareness-${createId('ten').slice(-8)}`, plan: 'enterprise', publicSiteUrl: 'https://bench.example' } })
const user = await db.user.create({ data: { id: createId('usr'), tenantId: tenant.id, email: 'editor@bench.example', name: 'Bench Editor', role: 'editor', passwordHash: 'x' } })
const article = await db.article.create({ data: { id: createId('art'), tenantId: tenant.id, headline: 'Watched', authorId: user.id } })
const actor: Actor = { tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl }, user: { id: user.id, role: 'editor' } }

async function cpuMicrosecondsPerCall(call: () => Promise<unknown>): Promise<{ cpuUs: number; wallUs: number }> {
  for (let i = 0; i < 200; i++) await call() // warm-up
  const started = process.cpuUsage()
  const wall = performance.now()
  // Ten at a time, as many pages' polls arrive together.
  for (let done = 0; done < calls; done += 10) await Promise.all(Array.from({ length: 10 }, call))
  const used = process.cpuUsage(started)
  return { cpuUs: Math.round(((used.user + used.system) / calls) * 10) / 10, wallUs: Math.round(((performance.now() - wall) * 1000) / calls) }
}

const first = await watchArticle(actor, article.id)
const tag = first.tag
const unchanged = await cpuMicrosecondsPerCall(() => watchArticle(actor, article.id, tag))
const changed = await cpuMicrosecondsPerCall(() => watchArticle(actor, article.id))
const renewal = await cpuMicrosecondsPerCall(() => claimEditLease(actor, article.id))

const watchesPerSecond = editors / watchIntervalSeconds
const heartbeatsPerSecond = editors / leaseHeartbeatSeconds
// Most polls find nothing changed; count the worst case anyway: every tenth poll meets a change.
const cpuMsPerSecond = (watchesPerSecond * (0.9 * unchanged.cpuUs + 0.1 * changed.cpuUs) + heartbeatsPerSecond * renewal.cpuUs) / 1000

await db.tenant.delete({ where: { id: tenant.id } })
console.log(
  JSON.stringify({
    editors,
    requests_per_second: Math.round((watchesPerSecond + heartbeatsPerSecond) * 10) / 10,
    watch_unchanged: unchanged,
    watch_changed: changed,
    lease_renewal: renewal,
    service_cpu_ms_per_second: Math.round(cpuMsPerSecond * 10) / 10,
    service_cpu_per_watcher_us_per_second: Math.round((cpuMsPerSecond * 1000) / editors),
  }),
)
await db.$disconnect()
process.exit(0)
