import pg from 'pg'
import { systemActor } from '../lib/tenancy/system-actor.ts'
import { createApiToken } from '../lib/tokens/api-tokens.ts'
import { createContentKey } from '../lib/content/content-keys.ts'
import { hashPassword } from '../lib/auth/passwords.ts'
import { createId } from '../lib/ids.ts'
import { sanitizeBody } from '../lib/articles/sanitize-body.ts'
import { sanitiseBodiesMigration } from '../lib/db/data-migrations/sanitise-stored-bodies.ts'

export type BenchTenant = { id: string; slug: string; token: string; departmentIds: string[]; authorIds: string[] }

/** A public content key of the newsroom (the content API's rows), minted as an admin would. */
export async function mintContentKey(tenant: BenchTenant): Promise<string> {
  return (await createContentKey({ ...(await systemActor(tenant.id))!, user: { id: tenant.authorIds[0]!, role: 'admin' } }, 'bench site')).key
}

const phaseLog = process.env.BENCH_SEED_PHASES === '1'
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now()
  try {
    return await work()
  } finally {
    if (phaseLog) console.log(`[seed] ${name}: ${Math.round(performance.now() - started)} ms`)
  }
}

const tagPool = Array.from({ length: 50 }, (_, i) => `tag-${i}`)

type SeedTenant = { id: string; departmentIds: string[]; authorIds: string[] }
type Work = (client: pg.Client) => Promise<void>

/** Runs `work` on the connections, each taking the next item when it is free: both cores busy. */
async function onConnections(clients: pg.Client[], work: Work[]): Promise<void> {
  let next = 0
  await Promise.all(clients.map(async (client) => {
    while (next < work.length) await work[next++]!(client)
  }))
}

/**
 * One range of a newsroom's articles, generated inside PostgreSQL (generate_series), so 100,000
 * rows with bodies of a few KB take seconds rather than minutes of round trips. `$7` is the
 * seeding's "now", one for the whole seeding, so that two seedings of the same sizes are
 * comparable row for row (tests/bench/seed-bench-data.integration.test.ts).
 */
const articleRows = `
  SELECT 'art_bench' || $1::text || '_' || lpad(i::text, 7, '0') AS id,
         $1::text AS tenant_id,
         CASE WHEN i % 3 = 0 THEN 'WIRE-' || i END AS external_id,
         (ARRAY['Council','Harbour board','University','Rail operator','Museum','Hospital trust','Football club','Water utility'])[1 + i % 8]
           || ' ' || (ARRAY['approves','delays','rejects','unveils','reviews','expands','cuts','celebrates'])[1 + (i / 8) % 8]
           || ' ' || (ARRAY['new budget','riverside plan','night service','summer exhibition','ward closures','stadium deal','price rise','research centre'])[1 + (i / 64) % 8]
           || ' (' || i || ')' AS headline,
         'What the decision means for readers in the city, story ' || i || '.' AS lede,
         '<p>' || md5(i::text) || '</p>' || repeat('<p>The committee met on Tuesday evening and heard from residents, officials and experts about the proposal, which has divided opinion for months. ' || md5((i * 7)::text) || '</p>', 20) AS body,
         ($3::text[])[1 + i % cardinality($3::text[])] AS department_id,
         ARRAY[($5::text[])[1 + i % 50], ($5::text[])[1 + (i * 7) % 50]] AS tags,
         (ARRAY['draft','in-review','approved','published','published','published','archived']::"ArticleStatus"[])[1 + i % 7] AS status,
         ($4::text[])[1 + i % cardinality($4::text[])] AS author_id,
         CASE WHEN i % 7 IN (3, 4, 5) THEN $7::timestamptz - ((i % 20000) || ' minutes')::interval END AS published_at,
         CASE WHEN i % 7 IN (3, 4, 5) THEN 'https://bench.example/articles/' || i END AS url,
         1 AS version,
         $7::timestamptz - ((i % 50000) || ' seconds')::interval AS created_at,
         -- Spread over the last 14 hours, as edits are, so the changes feed has something to filter.
         $7::timestamptz - ((i % 50000) || ' seconds')::interval AS updated_at,
         NULL::text AS featured_media_id,
         NULL::text AS edited_by_id
  FROM generate_series($2::int, $6::int) AS i`
const articleColumns = 'id, tenant_id, external_id, headline, lede, body, department_id, tags, status, author_id, published_at, url, version, created_at, updated_at, featured_media_id, edited_by_id'

function articleParameters(tenant: SeedTenant, start: number, end: number, now: Date) {
  return [tenant.id, start, tenant.departmentIds, tenant.authorIds, tagPool, end - 1, now]
}

/**
 * The reference: a plain INSERT, every trigger of articles firing as on any write (the search
 * vector, the media ids, the change stamp, the first revision, the list totals, the foreign
 * keys). What the bulk load below must produce; the equivalence test seeds both and compares.
 */
async function insertArticlesThroughTriggers(client: pg.Client, tenant: SeedTenant, start: number, end: number, now: Date) {
  await client.query(`INSERT INTO articles (${articleColumns}) SELECT ${articleColumns} FROM (${articleRows}) AS g`, articleParameters(tenant, start, end, now))
}

/**
 * The bulk load: the same rows with the row triggers off for this transaction only
 * (session_replication_role = replica, SET LOCAL), and what they would have written computed
 * in the same statement, set-based. Each per-row trigger's work is otherwise what dominates a
 * seeding: one plpgsql call, one queued after-trigger event and one single-row INSERT (the
 * revision, through SPI) per article, plus three foreign-key look-ups per article and two per
 * revision.
 *
 * - search_vector: article_search_vector(), the function articles_search_vector_refresh() calls,
 *   with the newsroom's search_language as the trigger looks it up.
 * - change_xid: pg_current_xact_id(), all articles_stamp_change() does.
 * - media_ids: the expression of articles_collect_media_ids(), which is inline plpgsql over NEW
 *   and not a function that a SELECT can call (always '{}' here: no featured image, no figure).
 * - the first revision: the row articles_record_revision() inserts for an INSERT (number 1, all
 *   six fields, no actor, nothing restored), its id from the same random uuid.
 * - articles_guard_live_media() writes nothing: it refuses a published row showing images the
 *   library lacks, and these rows show none.
 * - The list totals (the statement triggers articles_count_inserts and
 *   articles_tags_count_inserts) and the foreign keys are done after the load, for all rows at
 *   once (countArticles, checkForeignKeys).
 *
 * Only media_ids and the revision's row repeat trigger code rather than call it; the equivalence
 * test is what keeps them from drifting: it seeds through the triggers as they are now.
 */
async function insertArticlesInBulk(client: pg.Client, tenant: SeedTenant, start: number, end: number, now: Date) {
  await client.query('BEGIN')
  try {
    await client.query(`SET LOCAL session_replication_role = replica`)
    // The revisions are written from the inserted rows, held in memory rather than on disk.
    await client.query(`SET LOCAL work_mem = '256MB'`)
    await client.query(
      `WITH article AS (
         INSERT INTO articles (${articleColumns}, search_vector, change_xid, media_ids)
         SELECT ${articleColumns.split(', ').map((column) => `g.${column}`).join(', ')},
                article_search_vector(t.search_language, g.headline, g.lede, g.tags, g.body),
                pg_current_xact_id(),
                ARRAY(
                  SELECT DISTINCT id FROM (
                    SELECT g.featured_media_id AS id
                    UNION ALL
                    SELECT m[1] FROM regexp_matches(coalesce(g.body, ''), '<figure\\s[^>]*data-media-id="(med_[0-9a-z]+)"', 'g') AS m
                  ) AS used
                  WHERE id IS NOT NULL
                  ORDER BY id)
         FROM (${articleRows}) AS g JOIN tenants t ON t.id = g.tenant_id
         RETURNING id, tenant_id, version, headline, lede, body, department_id, tags, author_id, edited_by_id
       )
       INSERT INTO article_revisions (id, tenant_id, article_id, version, number, actor_id, fields, headline, lede, body, department_id, tags, author_id, restored_from_revision_id)
       SELECT 'rev_' || replace(gen_random_uuid()::text, '-', ''), a.tenant_id, a.id, a.version, 1,
              CASE WHEN a.edited_by_id IS NOT NULL THEN (SELECT u.id FROM users u WHERE u.id = a.edited_by_id AND u.tenant_id = a.tenant_id) END,
              ARRAY['headline', 'lede', 'body', 'department_id', 'tags', 'author_id'], a.headline, a.lede, a.body, a.department_id, a.tags, a.author_id, NULL
       FROM article AS a`,
      articleParameters(tenant, start, end, now),
    )
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK')
    throw error
  }
}

/**
 * The list totals of the newsrooms' articles, as the statement triggers would have kept them:
 * one row per key with the trigger's own bucket function (article_count_buckets) and tag folding
 * (article_tags_folded), as the migrations that created these tables counted the articles there
 * were. The triggers spread a key over shards by backend; a total is the sum over shards.
 */
async function countArticles(clients: pg.Client[], tenantIds: string[]) {
  await onConnections(clients, [
    (client) => client.query(
      `INSERT INTO article_counts AS c (tenant_id, grain, bucket, status, department_id, shard, n)
       SELECT a.tenant_id, b.grain, b.bucket, a.status, coalesce(a.department_id, ''), 0, count(*)
       FROM articles a CROSS JOIN LATERAL article_count_buckets(a.published_at) AS b
       WHERE a.tenant_id = ANY($1::text[])
       GROUP BY 1, 2, 3, 4, 5
       ON CONFLICT (tenant_id, grain, bucket, status, department_id, shard) DO UPDATE SET n = c.n + excluded.n`,
      [tenantIds],
    ).then(() => {}),
    (client) => client.query(
      `INSERT INTO article_tag_counts AS c (tenant_id, tag, status, shard, n)
       SELECT a.tenant_id, t.tag, a.status, 0, count(*)
       FROM articles a CROSS JOIN LATERAL (SELECT DISTINCT tag FROM unnest(article_tags_folded(a.tags)) AS tag WHERE tag IS NOT NULL) AS t
       WHERE a.tenant_id = ANY($1::text[])
       GROUP BY 1, 2, 3
       ON CONFLICT (tenant_id, tag, status, shard) DO UPDATE SET n = c.n + excluded.n`,
      [tenantIds],
    ).then(() => {}),
  ])
}

/**
 * The foreign keys of `tables`, which replica mode did not check row by row: every one checked
 * once over the loaded rows (an anti-join per constraint, seconds at 1,000,000 articles).
 */
async function checkForeignKeys(clients: pg.Client[], tables: string[]) {
  const { rows } = await clients[0]!.query<{ name: string; table: string; columns: string[]; referenced: string; referencedColumns: string[] }>(
    `SELECT c.conname AS name, c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS referenced,
            ARRAY(SELECT attname FROM unnest(c.conkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute ON attrelid = c.conrelid AND attnum = k.n ORDER BY k.o)::text[] AS columns,
            ARRAY(SELECT attname FROM unnest(c.confkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute ON attrelid = c.confrelid AND attnum = k.n ORDER BY k.o)::text[] AS "referencedColumns"
     FROM pg_constraint c WHERE c.contype = 'f' AND c.conrelid = ANY($1::regclass[])`,
    [tables],
  )
  await onConnections(clients, rows.map((fk) => async (client) => {
    const { rows: [missing] } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${fk.table} r
       WHERE ${fk.columns.map((column) => `r."${column}" IS NOT NULL`).join(' AND ')}
         AND NOT EXISTS (SELECT 1 FROM ${fk.referenced} p WHERE ${fk.columns.map((column, i) => `p."${fk.referencedColumns[i]}" = r."${column}"`).join(' AND ')})`,
    )
    if (Number(missing!.n) > 0) throw new Error(`seeding broke ${fk.name}: ${missing!.n} rows of ${fk.table} refer to no row of ${fk.referenced}`)
  }))
}

/**
 * Runs `load` without the secondary indexes of `tables`, then builds them again from their own
 * definitions, on both connections at once: one bulk build is many times cheaper than an index
 * entry per inserted row (the GIN indexes above all). Primary keys and unique indexes stay, so
 * the data is checked as usual.
 */
async function withIndexesBuiltAfter(clients: pg.Client[], tables: string[], load: () => Promise<void>): Promise<void> {
  const { rows } = await clients[0]!.query<{ name: string; definition: string; gin: boolean }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition, am.amname = 'gin' AS gin
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
     WHERE i.indrelid = ANY($1::regclass[]) AND NOT i.indisprimary AND NOT i.indisunique`,
    [tables],
  )
  for (const index of rows) await clients[0]!.query(`DROP INDEX "${index.name}"`)
  try {
    await load()
  } finally {
    for (const client of clients) await client.query(`SET maintenance_work_mem = '512MB'`)
    // The GIN builds first: they take longest and cannot use parallel workers.
    const ordered = [...rows.filter((index) => index.gin), ...rows.filter((index) => !index.gin)]
    await onConnections(clients, ordered.map((index) => (client) => phase(index.name, () => client.query(index.definition)).then(() => {})))
  }
}

const eventKindsSeeded = ['article.created', 'article.updated', 'workflow.transitioned', 'article.published', 'article.updated', 'workflow.transitioned', 'article.unpublished', 'user.created']

/**
 * A newsroom's events of the last 30 days for the events API rows: kinds in a realistic mix,
 * each about one of the seeded articles (user.created about a user), already handed to the
 * queue so the outbox sweeper leaves them be. `data` is the article's short record, not its
 * body, so a million events stay a few hundred MB.
 */
function eventBatches(tenant: SeedTenant, count: number, articles: number, now: Date): Work[] {
  const batch = 50_000
  const work: Work[] = []
  for (let start = 0; start < count; start += batch) {
    const end = Math.min(count, start + batch)
    work.push(async (client) => {
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
                      $8::timestamptz - ((i::bigint * 2592000000 / $7::bigint) || ' milliseconds')::interval AS at
               FROM generate_series($2::int, $3::int) AS i) AS e`,
        [tenant.id, start, end - 1, tenant.departmentIds, eventKindsSeeded, articles, count, now],
      )
    })
  }
  return work
}

export type SeedOptions = {
  /**
   * Seed through the articles' triggers, as any write does, instead of the bulk load: the
   * reference the equivalence test compares the bulk load with (about three times slower).
   */
  throughTriggers?: boolean
  /** The seeding's "now" (the rows' timestamps count back from it); the database's clock by default. */
  now?: Date
}

/**
 * Seeds newsrooms of the sizes given: each with three users, eight departments, its articles
 * (each with its first revision, counted in the list totals) and optionally events. Two
 * connections share the work in ranges of 10,000 articles and 50,000 events, so both cores work.
 */
export async function seedBenchData(databaseUrl: string, sizes: { name: string; plan: 'standard' | 'enterprise'; articles: number; events?: number }[], options: SeedOptions = {}): Promise<BenchTenant[]> {
  const clients = [new pg.Client({ connectionString: databaseUrl }), new pg.Client({ connectionString: databaseUrl })]
  for (const client of clients) await client.connect()
  const [client] = clients as [pg.Client]
  const tenants: BenchTenant[] = []
  const articleWork: Work[] = []
  const eventWork: Work[] = []
  try {
    const now = options.now ?? (await client.query<{ now: Date }>('SELECT now()')).rows[0]!.now
    const emptyBefore = !(await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM articles) AS any')).rows[0]!.any
    const insertArticles = options.throughTriggers ? insertArticlesThroughTriggers : insertArticlesInBulk
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
      const tenant = { id, departmentIds, authorIds }
      const batch = 10_000
      for (let start = 0; start < size.articles; start += batch) {
        const end = Math.min(size.articles, start + batch)
        articleWork.push((connection) => insertArticles(connection, tenant, start, end, now))
      }
      if (size.events) eventWork.push(...eventBatches(tenant, size.events, size.articles, now))
      tenants.push({ id, slug, token: '', departmentIds, authorIds })
    }
    const loaded = ['articles', 'article_revisions', 'events']
    await withIndexesBuiltAfter(clients, loaded, async () => {
      // The articles first: the events have no triggers and fill the connections' last gaps.
      await phase('articles and events', () => onConnections(clients, [...articleWork, ...eventWork]))
      if (!options.throughTriggers) {
        await phase('foreign keys', () => checkForeignKeys(clients, loaded))
        await phase('list totals', () => countArticles(clients, tenants.map((tenant) => tenant.id)))
      }
    })
    // What autovacuum does to a settled database: fresh statistics and a visibility map, so
    // counts can use index-only scans (a just-loaded table makes them read the heap). The big
    // tables on both connections, then the rest.
    await phase('vacuum analyze', async () => {
      await onConnections(clients, loaded.map((table) => (connection) => connection.query(`VACUUM ANALYZE ${table}`).then(() => {})))
      await client.query('VACUUM ANALYZE')
    })
    if (emptyBefore) await recordBodiesClean(client)
  } finally {
    for (const connection of clients) await connection.end()
  }
  for (const tenant of tenants) tenant.token = await mintBenchToken(tenant)
  return tenants
}

/**
 * Every body this seeding wrote is one expression of its row number (articleRows), markup the
 * sanitiser keeps as it is; checked on the first, a middle and the last article, the body data
 * migration is recorded as done, as if `npm run db:migrate` had scanned them and changed none.
 * That scan read and sanitised every body again: 178 s of the 1,000,000-article seeding's 632 s
 * on a quiet machine (issue 50 asks for it under 10 minutes). Only for a database that had no
 * articles before, whose every body is then this seeding's.
 */
async function recordBodiesClean(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ body: string | null }>(
    `(SELECT body FROM articles ORDER BY id LIMIT 1) UNION ALL (SELECT body FROM articles ORDER BY id DESC LIMIT 1)
     UNION ALL (SELECT body FROM articles ORDER BY id OFFSET (SELECT count(*) / 2 FROM articles) LIMIT 1)`,
  )
  if (rows.length === 0 || rows.some(({ body }) => body !== null && sanitizeBody(body) !== body)) return
  await client.query(`INSERT INTO data_migrations (name, changed) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, [sanitiseBodiesMigration])
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
