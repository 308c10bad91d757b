/**
 * A bounded mixed workload against a running /v1 server, with every answer checked against
 * what the caller knows to be true. The same scenario runs on each store (embedded PGlite as
 * `npm run dev` starts it, and PostgreSQL), so both are held to one standard.
 *
 * Each article's headline and tags carry its tenant's marker and its own sequence, so a row
 * that belongs to another article or another newsroom is recognisable in any answer.
 */
import pg from 'pg'
import { apiClient, type ApiAnswer } from '../support/api-client.ts'
import type { ServedTenant } from '../support/spawn-api-server.ts'

export type LoadOptions = { clients: number; requestsPerClient: number; seed: number }

type TenantState = {
  marker: string
  tenant: ServedTenant
  other: ServedTenant
  client: ReturnType<typeof apiClient>
  /** Articles known to exist (seeded, or created by an answered request). */
  articleIds: string[]
  /** Articles the workflow part moves forward to publication. */
  workflowIds: string[]
  created: number
  bulkExternalIds: Set<string>
}

export type Violation = { request: string; status: number; problem: string }

export type LoadReport = {
  requests: number
  byStatus: Record<string, number>
  violations: Violation[]
  /** Per tenant, what the database holds afterwards versus what the answers promised. */
  tenants: Array<{ marker: string; listedTotal: number; expectedTotal: number; foreignRows: number }>
  published: Array<{ articleId: string; publishedEvents: number }>
  unpublishedWithEvents: string[]
}

/** A small deterministic random source, so a failing run can be repeated with its seed. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const workflowOrder = ['draft', 'in-review', 'approved', 'published'] as const

/**
 * Runs the workload and returns every broken promise it saw. `databaseUrl` is read at the end
 * (events per published article); during the run only HTTP answers are judged.
 */
export async function runMixedLoad(baseUrl: string, databaseUrl: string, tenants: [ServedTenant, ServedTenant], options: LoadOptions): Promise<LoadReport> {
  const violations: Violation[] = []
  const byStatus: Record<string, number> = {}
  let requests = 0

  const states: TenantState[] = tenants.map((tenant, index) => ({
    marker: `tn${index}x${options.seed}`,
    tenant,
    other: tenants[1 - index]!,
    client: apiClient(baseUrl, tenant.token),
    articleIds: [],
    workflowIds: [],
    created: 0,
    bulkExternalIds: new Set(),
  }))

  const judge = (label: string, answer: ApiAnswer, allowed: number[], check?: (body: any) => string | undefined) => {
    requests++
    byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1
    if (!allowed.includes(answer.status)) {
      violations.push({ request: label, status: answer.status, problem: `expected ${allowed.join(' or ')}: ${answer.text.slice(0, 300)}` })
      return false
    }
    if (!answer.headers.get('x-request-id')) violations.push({ request: label, status: answer.status, problem: 'no X-Request-Id' })
    const problem = answer.status < 300 ? check?.(answer.body) : undefined
    if (problem) violations.push({ request: label, status: answer.status, problem })
    return !problem
  }

  const ownArticle = (state: TenantState, id: string) => (article: any) => {
    if (article?.article_id !== id) return `asked for ${id}, got ${article?.article_id}`
    if (typeof article.headline !== 'string' || !article.headline.startsWith(`${state.marker} `)) return `headline ${JSON.stringify(article.headline)} is not this newsroom's`
    if (!article.tags?.includes(state.marker)) return `tags ${JSON.stringify(article.tags)} lack this newsroom's marker`
    return undefined
  }

  // Seed each newsroom before the load: articles to read and edit, and some to publish.
  for (const state of states) {
    for (let index = 0; index < 16; index++) {
      const answer = await state.client.post('/v1/articles', {
        headline: `${state.marker} seed ${index}`,
        lede: 'Seeded before the load',
        body: `<p>${state.marker} body ${index}</p>`,
        tags: [state.marker, index % 2 === 0 ? 'even' : 'odd'],
        department_id: state.tenant.departmentIds[index % state.tenant.departmentIds.length],
      })
      if (!judge(`seed ${state.marker} ${index}`, answer, [201], (body) => (body?.headline === `${state.marker} seed ${index}` ? undefined : 'created a different article'))) continue
      state.created++
      ;(index < 6 ? state.workflowIds : state.articleIds).push(answer.body.article_id)
    }
  }

  const actions: Array<[weight: number, run: (state: TenantState, pick: () => number, label: string) => Promise<void>]> = [
    [5, async (state, pick, label) => {
      const id = state.articleIds[Math.floor(pick() * state.articleIds.length)]!
      judge(`${label} GET ${id}`, await state.client.get(`/v1/articles/${id}`), [200], ownArticle(state, id))
    }],
    [1, async (state, pick, label) => {
      // Another newsroom's article is a 404 for this token, never its row.
      const foreign = states.find((candidate) => candidate !== state)!
      const id = foreign.articleIds[Math.floor(pick() * foreign.articleIds.length)]!
      judge(`${label} GET foreign ${id}`, await state.client.get(`/v1/articles/${id}`), [404])
    }],
    [3, async (state, pick, label) => {
      const status = (['draft', 'in-review', 'approved', 'published'] as const)[Math.floor(pick() * 4)]!
      const tag = pick() < 0.5 ? state.marker : 'even'
      const department = state.tenant.departmentIds[Math.floor(pick() * state.tenant.departmentIds.length)]!
      const query = pick() < 0.5 ? `tag=${tag}&status=${status}&limit=20` : `department_id=${department}&limit=50`
      judge(`${label} list ${query}`, await state.client.get(`/v1/articles?${query}`), [200], (page) => {
        if (!Array.isArray(page?.items) || typeof page.total !== 'number') return 'not a page'
        for (const item of page.items) {
          if (!item.headline?.startsWith(`${state.marker} `)) return `listed ${item.article_id} (${JSON.stringify(item.headline)}) from another newsroom`
          if (query.startsWith('tag=') && (!item.tags.includes(tag) || item.status !== status)) return `listed ${item.article_id} that does not match ${query}`
          if (query.startsWith('department_id=') && item.department_id !== department) return `listed ${item.article_id} of another department`
        }
        return page.total < page.items.length ? 'total below the items on the page' : undefined
      })
    }],
    [2, async (state, pick, label) => {
      const sequence = Math.floor(pick() * 1e9)
      const headline = `${state.marker} created ${sequence}`
      const answer = await state.client.post('/v1/articles', { headline, body: `<p>${sequence}</p>`, tags: [state.marker, 'created'] })
      if (judge(`${label} POST`, answer, [201], (body) => (body?.headline === headline && body.status === 'draft' ? undefined : `answered ${JSON.stringify(body?.headline)}`))) {
        state.created++
        state.articleIds.push(answer.body.article_id)
      }
    }],
    [2, async (state, pick, label) => {
      // A blind PATCH is last-writer-wins: it always lands (200), whoever else writes meanwhile.
      const id = state.articleIds[Math.floor(pick() * state.articleIds.length)]!
      const headline = `${state.marker} blind ${Math.floor(pick() * 1e9)}`
      const answer = await state.client.patch(`/v1/articles/${id}`, { headline })
      judge(`${label} PATCH ${id}`, answer, [200], (body) => ownArticle(state, id)(body) ?? (body.headline === headline ? undefined : `answered headline ${body.headline}`))
    }],
    [2, async (state, pick, label) => {
      // Read, then change only if nobody else did in between (If-Match): 200 or 412.
      const id = state.articleIds[Math.floor(pick() * state.articleIds.length)]!
      const read = await state.client.get(`/v1/articles/${id}`)
      if (!judge(`${label} GET for If-Match ${id}`, read, [200], ownArticle(state, id))) return
      const headline = `${state.marker} matched ${Math.floor(pick() * 1e9)}`
      const answer = await state.client.patch(`/v1/articles/${id}`, { headline }, { 'If-Match': read.headers.get('etag') ?? '' })
      judge(`${label} PATCH If-Match ${id}`, answer, [200, 412], (body) => ownArticle(state, id)(body) ?? (body.version > read.body.version ? undefined : 'version did not increase'))
    }],
    [3, async (state, pick, label) => {
      // Move a workflow article one step forward; racing clients may find it moved already.
      const id = state.workflowIds[Math.floor(pick() * state.workflowIds.length)]!
      const read = await state.client.get(`/v1/articles/${id}`)
      if (!judge(`${label} GET for transition ${id}`, read, [200], ownArticle(state, id))) return
      const next = workflowOrder[workflowOrder.indexOf(read.body.status) + 1]
      if (!next) return
      const answer = await state.client.post(`/v1/articles/${id}/transitions`, { to_state: next })
      judge(`${label} transition ${id} → ${next}`, answer, [200, 409], (body) => ownArticle(state, id)(body) ?? (workflowOrder.indexOf(body.status) >= workflowOrder.indexOf(next) ? undefined : `answered status ${body.status}`))
      if (answer.status === 409 && !['invalid_transition', 'concurrent_update'].includes(answer.body?.code)) violations.push({ request: `${label} transition ${id}`, status: 409, problem: `code ${answer.body?.code}` })
    }],
    [1, async (state, pick, label) => {
      // Wire copy: a few external ids repeat across batches, so some items update.
      const items = Array.from({ length: 5 }, () => {
        const externalId = `${state.marker}-wire-${Math.floor(pick() * 12)}`
        return { external_id: externalId, headline: `${state.marker} wire ${externalId}`, body: '<p>wire</p>', tags: [state.marker, 'wire'] }
      })
      const unique = [...new Map(items.map((item) => [item.external_id, item])).values()]
      const answer = await state.client.post('/v1/articles/bulk', { articles: unique })
      judge(`${label} bulk`, answer, [200], (body) => {
        if (body?.failed !== 0 || body.created + body.updated !== unique.length) return `bulk answered ${JSON.stringify(body).slice(0, 200)}`
        for (const result of body.results) if (result.status === 'created') state.created++
        for (const item of unique) state.bulkExternalIds.add(item.external_id)
        return undefined
      })
    }],
  ]
  const totalWeight = actions.reduce((sum, [weight]) => sum + weight, 0)

  await Promise.all(
    Array.from({ length: options.clients }, async (_, clientIndex) => {
      const pick = random(options.seed * 1000 + clientIndex)
      const state = states[clientIndex % states.length]!
      for (let index = 0; index < options.requestsPerClient; index++) {
        let roll = pick() * totalWeight
        const action = actions.find(([weight]) => (roll -= weight) < 0) ?? actions[0]!
        await action[1](state, pick, `client ${clientIndex} #${index}`)
      }
    }),
  )

  // Afterwards: every newsroom holds exactly what its answers promised, and nothing foreign.
  const tenantReports: LoadReport['tenants'] = []
  for (const state of states) {
    let foreignRows = 0
    let listedTotal = 0
    for (let offset = 0; ; offset += 200) {
      const page = await state.client.get(`/v1/articles?limit=200&offset=${offset}`)
      judge(`final list ${state.marker} ${offset}`, page, [200])
      listedTotal = page.body.total
      foreignRows += page.body.items.filter((item: any) => !item.headline.startsWith(`${state.marker} `)).length
      if (page.body.next_offset === null) break
    }
    tenantReports.push({ marker: state.marker, listedTotal, expectedTotal: state.created, foreignRows })
  }

  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const published: LoadReport['published'] = []
  const unpublishedWithEvents: string[] = []
  try {
    for (const state of states) {
      for (const id of state.workflowIds) {
        const { rows: [article] } = await client.query<{ status: string }>(`SELECT status::text FROM articles WHERE id = $1`, [id])
        const { rows: [events] } = await client.query<{ count: string }>(`SELECT count(*) FROM events WHERE kind = 'article.published' AND data->>'article_id' = $1`, [id])
        const count = Number(events!.count)
        if (article!.status === 'published') published.push({ articleId: id, publishedEvents: count })
        else if (count > 0) unpublishedWithEvents.push(id)
      }
    }
  } finally {
    await client.end()
  }
  return { requests, byStatus, violations, tenants: tenantReports, published, unpublishedWithEvents }
}
