import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { setHostResolver } from '../../lib/webhooks/url-safety.ts'
import { apiClient, type ApiAnswer } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { refuseConnectionsOffTheMachine } from '../support/no-outbound-connections.ts'

// Two newsrooms use the API at once, in random interleavings of every kind of request,
// often aiming at each other's ids, sharing external_ids, tags and Idempotency-Keys. After
// every step: the answer to one newsroom holds nothing of the other's, the other's rows are
// exactly as they were, and an id of the other newsroom answers 404 (never 403, never data).

type Side = 'A' | 'B'
type Known = { articles: string[]; webhooks: string[]; marker: string }
type World = Record<Side, Known & { client: ReturnType<typeof apiClient>; newsroom: TestTenant; fixedIds: string[] }>

let server: Awaited<ReturnType<typeof startApiServer>>
let world: World
const other = (side: Side): Side => (side === 'A' ? 'B' : 'A')

// Shared between the newsrooms on purpose: the same wire id, tag or key must never cross over.
const sharedExternalIds = ['WIRE-1', 'WIRE-2', 'WIRE-3']
const sharedTags = ['shared', 'politics']
const sharedKeys = ['key-1', 'key-2']
// Keys are remembered for a day; a new prefix per sequence lets both newsrooms spend the
// same fresh key within one sequence instead of replaying the previous sequences' answers.
let sequence = 0
// The ids beforeAll seeded, so the end of the test can tell them from what the runs created.
const seeded = new Set<string>()
// Steps that aimed at one of the other newsroom's real ids and were answered 404.
let refusedCrossTenantSteps = 0
const states = ['draft', 'in-review', 'approved', 'published', 'archived'] as const

let offTheMachine: ReturnType<typeof refuseConnectionsOffTheMachine> | undefined

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: undefined, WEBHOOK_SECRET_KEY: 'isolation-test-key' })
  // Receiver names resolve to a public address without the network.
  // Made-up names resolve to a public address so the SSRF rules let them through; the sockets
  // themselves are refused (a closed port), so no request of this file leaves the machine.
  offTheMachine = refuseConnectionsOffTheMachine()
  setHostResolver(async () => [{ address: '93.184.216.34', family: 4 }])
  server = await startApiServer()
  const make = async (side: Side) => {
    const newsroom = await createTestTenant({ plan: 'enterprise' })
    const client = apiClient(server.url, await newsroom.token(['admin']))
    const fixedIds = [newsroom.tenant.id, ...Object.values(newsroom.users).map((user) => user.id), ...newsroom.departments.map((department) => department.id)]
    return { client, newsroom, fixedIds, articles: [] as string[], webhooks: [] as string[], marker: `only-in-${side}-${newsroom.tenant.id.slice(-6)}` }
  }
  world = { A: await make('A'), B: await make('B') }
  // Something to aim at from the first step on.
  for (const known of [world.A, world.B]) {
    for (const tag of sharedTags) known.articles.push((await known.client.post('/v1/articles', { headline: `${known.marker} seed`, tags: [tag, known.marker] })).body.article_id)
    known.webhooks.push((await known.client.post('/v1/webhooks', { url: `https://hooks.example.com/${known.marker}`, events: ['article.published'], secret: 'isolation-secret-0123456789' })).body.webhook_id)
    for (const id of [...known.articles, ...known.webhooks]) seeded.add(id)
  }
})

afterAll(async () => {
  setHostResolver(undefined)
  offTheMachine?.restore()
  await server.close()
  vi.unstubAllEnvs()
})

/** Everything the database holds for a newsroom that a request could change. */
async function rowsOf(side: Side): Promise<string> {
  const tenantId = world[side].newsroom.tenant.id
  const [articles, webhooks, events, transitions, audit, deliveries, users, departments] = await Promise.all([
    db.article.findMany({ where: { tenantId }, orderBy: { id: 'asc' } }),
    db.webhookSubscription.findMany({ where: { tenantId }, orderBy: { id: 'asc' } }),
    db.event.count({ where: { tenantId } }),
    db.articleTransition.count({ where: { tenantId } }),
    db.auditEntry.count({ where: { tenantId } }),
    db.delivery.count({ where: { tenantId } }),
    db.user.findMany({ where: { tenantId }, orderBy: { id: 'asc' } }),
    db.department.findMany({ where: { tenantId }, orderBy: { id: 'asc' } }),
  ])
  return JSON.stringify({ articles, webhooks, events, transitions, audit, deliveries, users, departments })
}

/** A target id: one of `owner`'s (by index), or one nobody has. */
function pickId(list: string[], pick: number, prefix: string): string {
  return list.length === 0 ? `${prefix}_nobodyhasthisid0000000000` : list[pick % list.length]!
}

type Request = { method: string; path: string; body?: unknown; headers?: Record<string, string> }

/** One step: who acts, what it sends, and whose id (if any) it aims at. */
type Step = {
  actor: Side
  describe: string
  build: (actor: Known & { fixedIds: string[] }, target: Known & { fixedIds: string[] }) => { request: Request; targetsOther: boolean }
}

const side = fc.constantFrom<Side>('A', 'B')
const aim = fc.record({ atOther: fc.boolean(), pick: fc.nat(50) })
const maybeKey = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...sharedKeys) })
const withKey = (key: string | undefined) => (key ? { 'Idempotency-Key': `seq${sequence}-${key}` } : undefined)
const sometimes = fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) })
const targetOf = (atOther: boolean, actor: Known & { fixedIds: string[] }, target: Known & { fixedIds: string[] }) => (atOther ? target : actor)

const stepArbitraries: fc.Arbitrary<Step>[] = [
  fc.record({ actor: side, tag: fc.constantFrom(...sharedTags), otherDepartment: sometimes, key: maybeKey }).map(({ actor, tag, otherDepartment, key }) => ({
    actor,
    describe: `${actor} creates an article${otherDepartment ? " in the other's department" : ''}`,
    build: (me, them) => ({
      request: {
        method: 'POST',
        path: '/v1/articles',
        body: { headline: `${me.marker} story`, tags: [tag, me.marker], ...(otherDepartment && { department_id: them.fixedIds.at(-1) }) },
        headers: withKey(key),
      },
      targetsOther: false,
    }),
  })),
  fc.record({ actor: side, aim }).map(({ actor, aim }) => ({
    actor,
    describe: `${actor} gets an article of ${aim.atOther ? 'the other' : 'its own'}`,
    build: (me, them) => ({ request: { method: 'GET', path: `/v1/articles/${pickId(targetOf(aim.atOther, me, them).articles, aim.pick, 'art')}` }, targetsOther: aim.atOther }),
  })),
  fc
    .record({
      actor: side,
      tag: fc.option(fc.constantFrom(...sharedTags), { nil: undefined }),
      status: fc.option(fc.constantFrom(...states), { nil: undefined }),
      foreignDepartment: sometimes,
      foreignAuthor: sometimes,
      limit: fc.integer({ min: 1, max: 200 }),
    })
    .map(({ actor, tag, status, foreignDepartment, foreignAuthor, limit }) => ({
      actor,
      describe: `${actor} lists articles`,
      build: (me, them) => {
        const query = new URLSearchParams({ limit: String(limit) })
        if (tag) query.set('tag', tag)
        if (status) query.set('status', status)
        // Filtering by the other newsroom's department or author must find nothing of it.
        if (foreignDepartment) query.set('department_id', them.fixedIds.at(-1)!)
        if (foreignAuthor) query.set('author_id', them.fixedIds[1]!)
        return { request: { method: 'GET', path: `/v1/articles?${query}` }, targetsOther: false }
      },
    })),
  fc.record({ actor: side, aim, tag: fc.constantFrom(...sharedTags) }).map(({ actor, aim, tag }) => ({
    actor,
    describe: `${actor} patches an article of ${aim.atOther ? 'the other' : 'its own'}`,
    build: (me, them) => ({
      request: { method: 'PATCH', path: `/v1/articles/${pickId(targetOf(aim.atOther, me, them).articles, aim.pick, 'art')}`, body: { headline: `${me.marker} edited`, tags: [tag, me.marker] } },
      targetsOther: aim.atOther,
    }),
  })),
  fc.record({ actor: side, aim, to: fc.constantFrom(...states), key: maybeKey }).map(({ actor, aim, to, key }) => ({
    actor,
    describe: `${actor} moves an article of ${aim.atOther ? 'the other' : 'its own'} to ${to}`,
    build: (me, them) => ({
      request: { method: 'POST', path: `/v1/articles/${pickId(targetOf(aim.atOther, me, them).articles, aim.pick, 'art')}/transitions`, body: { to_state: to }, headers: withKey(key) },
      targetsOther: aim.atOther,
    }),
  })),
  fc.record({ actor: side, externalIds: fc.subarray(sharedExternalIds, { minLength: 1 }), key: maybeKey }).map(({ actor, externalIds, key }) => ({
    actor,
    describe: `${actor} bulk-imports ${externalIds.join(', ')}`,
    build: (me) => ({
      request: { method: 'POST', path: '/v1/articles/bulk', body: { articles: externalIds.map((externalId) => ({ external_id: externalId, headline: `${me.marker} wire ${externalId}`, tags: [me.marker] })) }, headers: withKey(key) },
      targetsOther: false,
    }),
  })),
  fc.record({ actor: side, key: maybeKey }).map(({ actor, key }) => ({
    actor,
    describe: `${actor} creates a webhook`,
    build: (me) => ({
      request: { method: 'POST', path: '/v1/webhooks', body: { url: `https://hooks.example.com/${me.marker}`, events: ['article.published'], secret: 'isolation-secret-0123456789' }, headers: withKey(key) },
      targetsOther: false,
    }),
  })),
  fc.record({ actor: side }).map(({ actor }) => ({
    actor,
    describe: `${actor} lists webhooks`,
    build: () => ({ request: { method: 'GET', path: '/v1/webhooks?limit=200' }, targetsOther: false }),
  })),
  fc.record({ actor: side, aim, what: fc.constantFrom('get', 'patch', 'delete', 'deliveries') }).map(({ actor, aim, what }) => ({
    actor,
    describe: `${actor} ${what} a webhook of ${aim.atOther ? 'the other' : 'its own'}`,
    build: (me, them) => {
      const id = pickId(targetOf(aim.atOther, me, them).webhooks, aim.pick, 'whk')
      const request: Request =
        what === 'get'
          ? { method: 'GET', path: `/v1/webhooks/${id}` }
          : what === 'patch'
            ? { method: 'PATCH', path: `/v1/webhooks/${id}`, body: { events: ['article.published', 'article.archived'], url: `https://hooks.example.com/${me.marker}/patched` } }
            : what === 'delete'
              ? { method: 'DELETE', path: `/v1/webhooks/${id}` }
              : { method: 'GET', path: `/v1/webhooks/${id}/deliveries` }
      return { request, targetsOther: aim.atOther }
    },
  })),
]

/** Records the ids a newsroom's own successful request created, so later steps can aim at them. */
function remember(known: Known, request: Request, answer: ApiAnswer) {
  if (answer.status === 201 && request.path === '/v1/articles') known.articles.push(answer.body.article_id)
  if (answer.status === 201 && request.path === '/v1/webhooks') known.webhooks.push(answer.body.webhook_id)
  if (answer.status === 200 && request.path === '/v1/articles/bulk') {
    for (const result of answer.body.results as { article_id?: string }[]) {
      if (result.article_id && !known.articles.includes(result.article_id)) known.articles.push(result.article_id)
    }
  }
}

// Writes twice as likely as the rest, so the sequences build up rows to aim at.
const weightedSteps = [...stepArbitraries, stepArbitraries[0]!, stepArbitraries[5]!, stepArbitraries[6]!]

class IsolationCommand implements fc.AsyncCommand<object, World> {
  constructor(readonly step: Step) {}
  check = () => true
  async run(_model: object, real: World): Promise<void> {
    const me = real[this.step.actor]
    const them = real[other(this.step.actor)]
    const { request, targetsOther } = this.step.build(me, them)
    const before = await rowsOf(other(this.step.actor))
    const answer = await me.client.call(request.method, request.path, { body: request.body, headers: request.headers })
    const context = `${this.step.describe}: ${request.method} ${request.path} → ${answer.status} ${answer.text.slice(0, 300)}`

    expect(answer.status, context).toBeLessThan(500)
    // Nothing of the other newsroom in the answer, except what the caller itself sent.
    const sent = `${request.path} ${JSON.stringify(request.body ?? null)}`
    const theirs = [...them.fixedIds, ...them.articles, ...them.webhooks, them.marker].filter((value) => !sent.includes(value))
    const seen = `${answer.text} ${answer.headers.get('location') ?? ''} ${answer.headers.get('etag') ?? ''}`
    expect(theirs.filter((value) => seen.includes(value)), context).toEqual([])
    // Their rows are untouched.
    expect(await rowsOf(other(this.step.actor)), context).toBe(before)
    if (targetsOther) {
      // A key this caller already spent on another request is refused before anything is
      // looked up; that answer is about its own key and says nothing of the other newsroom.
      const ownKeyReused = request.headers?.['Idempotency-Key'] !== undefined && answer.body?.code === 'idempotency_key_reused'
      if (!ownKeyReused) {
        expect(answer.status, context).toBe(404)
        expect(answer.body?.code, context).toBe('not_found')
        refusedCrossTenantSteps++
      }
    }
    remember(me, request, answer)
  }
  toString = () => this.step.describe
}

describe('two newsrooms, random interleavings of every request', () => {
  it('never see, change or reach each other’s data', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(weightedSteps.map((arbitrary) => arbitrary.map((step) => new IsolationCommand(step))), { maxCommands: 10, size: 'max' }), async (commands) => {
        sequence++
        await fc.asyncModelRun(() => ({ model: {}, real: world }), commands)
      }),
      { numRuns: 40 },
    )
    // The runs themselves must have created rows on both sides (not just the seeded ones) and
    // actually aimed at the other newsroom's ids, or the checks above tested little.
    for (const s of ['A', 'B'] as const) {
      expect(new Set(world[s].articles.filter((id) => !seeded.has(id))).size, `${s} articles created by the runs`).toBeGreaterThan(0)
      expect(new Set(world[s].webhooks.filter((id) => !seeded.has(id))).size, `${s} webhooks created by the runs`).toBeGreaterThan(0)
    }
    expect(refusedCrossTenantSteps, 'steps aimed at the other newsroom and refused').toBeGreaterThan(0)
  }, 90_000)
})
