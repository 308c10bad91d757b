import pg from 'pg'
import { systemActor } from '../lib/tenancy/system-actor.ts'
import { createApiToken } from '../lib/tokens/api-tokens.ts'
import { hashPassword } from '../lib/auth/passwords.ts'
import { createId } from '../lib/ids.ts'

export type BenchTenant = { id: string; slug: string; token: string; departmentIds: string[]; authorIds: string[] }

const tagPool = Array.from({ length: 50 }, (_, i) => `tag-${i}`)

/**
 * Generates realistic articles inside PostgreSQL (generate_series), so 100,000 rows with
 * bodies of a few KB take seconds rather than minutes of round trips.
 */
async function insertArticles(clients: pg.Client[], tenant: { id: string; departmentIds: string[]; authorIds: string[] }, count: number) {
  const batch = 10_000
  let next = 0
  // Each connection takes the next batch: PostgreSQL runs the rows' triggers (the search vector,
  // the first revision) on as many cores as there are connections.
  await Promise.all(clients.map(async (client) => {
    for (let start = next; start < count; start = next) {
      next += batch
      await insertBatch(client, tenant, start, Math.min(count, start + batch))
    }
  }))
}

async function insertBatch(client: pg.Client, tenant: { id: string; departmentIds: string[]; authorIds: string[] }, start: number, end: number) {
  await client.query(
    `INSERT INTO articles (id, tenant_id, external_id, headline, lede, body, department_id, tags, status, author_id,
                           published_at, url, version, created_at, updated_at)
     SELECT 'art_bench' || $1::text || '_' || lpad(i::text, 7, '0'),
            $1,
            CASE WHEN i % 3 = 0 THEN 'WIRE-' || i END,
            (ARRAY['Council','Harbour board','University','Rail operator','Museum','Hospital trust','Football club','Water utility'])[1 + i % 8]
              || ' ' || (ARRAY['approves','delays','rejects','unveils','reviews','expands','cuts','celebrates'])[1 + (i / 8) % 8]
              || ' ' || (ARRAY['new budget','riverside plan','night service','summer exhibition','ward closures','stadium deal','price rise','research centre'])[1 + (i / 64) % 8]
              || ' (' || i || ')',
            'What the decision means for readers in the city, story ' || i || '.',
            '<p>' || md5(i::text) || '</p>' || repeat('<p>The committee met on Tuesday evening and heard from residents, officials and experts about the proposal, which has divided opinion for months. ' || md5((i * 7)::text) || '</p>', 20),
            ($3::text[])[1 + i % cardinality($3::text[])],
            ARRAY[($5::text[])[1 + i % 50], ($5::text[])[1 + (i * 7) % 50]],
            (ARRAY['draft','in-review','approved','published','published','published','archived']::"ArticleStatus"[])[1 + i % 7],
            ($4::text[])[1 + i % cardinality($4::text[])],
            CASE WHEN i % 7 IN (3, 4, 5) THEN now() - ((i % 20000) || ' minutes')::interval END,
            CASE WHEN i % 7 IN (3, 4, 5) THEN 'https://bench.example/articles/' || i END,
            1,
            now() - ((i % 50000) || ' seconds')::interval,
            -- Spread over the last 14 hours, as edits are, so the changes feed has something to filter.
            now() - ((i % 50000) || ' seconds')::interval
     FROM generate_series($2::int, $6::int) AS i`,
    [tenant.id, start, tenant.departmentIds, tenant.authorIds, tagPool, end - 1],
  )
}

/**
 * Runs `load` without the secondary indexes of `tables`, then builds them again from their own
 * definitions: one bulk build is many times cheaper than an index entry per inserted row (the
 * GIN indexes above all). Primary keys and unique indexes stay, so the data is checked as usual.
 */
async function withIndexesBuiltAfter(client: pg.Client, tables: string[], load: () => Promise<void>): Promise<void> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = ANY($1::regclass[]) AND NOT i.indisprimary AND NOT i.indisunique`,
    [tables],
  )
  for (const index of rows) await client.query(`DROP INDEX "${index.name}"`)
  try {
    await load()
  } finally {
    await client.query(`SET maintenance_work_mem = '256MB'`)
    for (const index of rows) await client.query(index.definition)
  }
}

const eventKindsSeeded = ['article.created', 'article.updated', 'workflow.transitioned', 'article.published', 'article.updated', 'workflow.transitioned', 'article.unpublished', 'user.created']

/**
 * A newsroom's events of the last 30 days for the events API rows: kinds in a realistic mix,
 * each about one of the seeded articles (user.created about a user), already handed to the
 * queue so the outbox sweeper leaves them be. `data` is the article's short record, not its
 * body, so a million events stay a few hundred MB.
 */
async function insertEvents(client: pg.Client, tenant: { id: string; departmentIds: string[] }, count: number, articles: number) {
  const batch = 50_000
  for (let start = 0; start < count; start += batch) {
    const end = Math.min(count, start + batch)
    await client.query(
      `INSERT INTO events (id, tenant_id, kind, occurred_at, data, sent_to_queue_at, created_at)
       SELECT 'evt_bench' || $1::text || '_' || lpad(i::text, 8, '0'), $1, kind, at,
              CASE WHEN kind = 'user.created' THEN jsonb_build_object('user_id', 'usr_bench_' || i, 'email', 'reporter' || i || '@bench.example', 'role', 'writer')
                   WHEN kind = 'workflow.transitioned' THEN jsonb_build_object('article_id', article_id, 'from_state', 'approved', 'to_state', 'published', 'actor_id', null)
                   ELSE jsonb_build_object('article_id', article_id, 'headline', 'Council approves riverside plan (' || i || ')', 'status', 'published',
                                           'department_id', ($4::text[])[1 + i % cardinality($4::text[])], 'tags', jsonb_build_array('tag-' || i % 50),
                                           'url', 'https://bench.example/articles/' || i, 'version', 1 + i % 5) END,
              at, at
       FROM (SELECT i, ($5::text[])[1 + i % cardinality($5::text[])] AS kind,
                    'art_bench' || $1::text || '_' || lpad(((i::bigint * 7919) % $6::int)::text, 7, '0') AS article_id,
                    now() - ((i::bigint * 2592000000 / $7::bigint) || ' milliseconds')::interval AS at
             FROM generate_series($2::int, $3::int) AS i) AS e`,
      [tenant.id, start, end - 1, tenant.departmentIds, eventKindsSeeded, articles, count],
    )
  }
}

export async function seedBenchData(databaseUrl: string, sizes: { name: string; plan: 'standard' | 'enterprise'; articles: number; events?: number }[]): Promise<BenchTenant[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const helper = new pg.Client({ connectionString: databaseUrl })
  await helper.connect()
  const tenants: BenchTenant[] = []
  const articleLoads: (() => Promise<void>)[] = []
  try {
    const passwordHash = await hashPassword('bench-password')
    for (const size of sizes) {
      const id = createId('ten')
      const slug = `bench-${size.name}`
      await client.query(`INSERT INTO tenants (id, name, slug, plan, public_site_url, updated_at) VALUES ($1, $2, $3, $4, $5, now())`, [id, `Bench ${size.name}`, slug, size.plan, `https://${slug}.example`])
      const authorIds: string[] = []
      for (const role of ['admin', 'editor', 'writer']) {
        const userId = createId('usr')
        await client.query(`INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())`, [userId, id, `${role}@${slug}.example`, `${slug} ${role}`, role, passwordHash])
        authorIds.push(userId)
      }
      const departmentIds: string[] = []
      for (const name of ['Politics', 'Business', 'Sport', 'Culture', 'Science', 'World', 'City', 'Opinion']) {
        const departmentId = createId('dep')
        await client.query(`INSERT INTO departments (id, tenant_id, name, updated_at) VALUES ($1, $2, $3, now())`, [departmentId, id, name])
        departmentIds.push(departmentId)
      }
      articleLoads.push(() => insertArticles([client, helper], { id, departmentIds, authorIds }, size.articles))
      if (size.events) await insertEvents(client, { id, departmentIds }, size.events, size.articles)
      tenants.push({ id, slug, token: '', departmentIds, authorIds })
    }
    await withIndexesBuiltAfter(client, ['articles', 'article_revisions'], async () => {
      for (const load of articleLoads) await load()
    })
    // What autovacuum does to a settled database: fresh statistics and a visibility map, so
    // counts can use index-only scans (a just-loaded table makes them read the heap).
    await client.query('VACUUM ANALYZE')
  } finally {
    await client.end()
    await helper.end()
  }
  for (const tenant of tenants) tenant.token = await mintBenchToken(tenant)
  return tenants
}

async function mintBenchToken(tenant: BenchTenant): Promise<string> {
  const admin = tenant.authorIds[0]!
  return (await createApiToken({ ...(await systemActor(tenant.id))!, user: { id: admin, role: 'admin' } }, { name: 'bench', scopes: ['articles:read', 'articles:write', 'events:read'] })).token
}

/** The newsrooms of a database seeded earlier (a copy of a BENCH_TEMPLATE), each with a new token. */
export async function benchTenantsOf(databaseUrl: string, names: string[]): Promise<BenchTenant[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const tenants: BenchTenant[] = []
    for (const name of names) {
      const slug = `bench-${name}`
      const { rows: [tenant] } = await client.query<{ id: string }>(`SELECT id FROM tenants WHERE slug = $1`, [slug])
      if (!tenant) throw new Error(`the template has no newsroom ${slug}`)
      // Seeded in this order: admin, editor, writer; the departments by name as inserted.
      const authors = await client.query<{ id: string }>(`SELECT id FROM users WHERE tenant_id = $1 ORDER BY array_position(ARRAY['admin','editor','writer'], role::text)`, [tenant.id])
      const departments = await client.query<{ id: string }>(`SELECT id FROM departments WHERE tenant_id = $1 ORDER BY array_position(ARRAY['Politics','Business','Sport','Culture','Science','World','City','Opinion'], name)`, [tenant.id])
      const found: BenchTenant = { id: tenant.id, slug, token: '', departmentIds: departments.rows.map((row) => row.id), authorIds: authors.rows.map((row) => row.id) }
      found.token = await mintBenchToken(found)
      tenants.push(found)
    }
    return tenants
  } finally {
    await client.end()
  }
}
