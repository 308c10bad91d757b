/**
 * The practical limit of this machine for the list and get endpoints: node:http and pg with
 * the same token lookup (hash, 5 s cache) and the same SQL as the service, no framework.
 * Like the service (lib/articles/article-totals.ts), it counts a list's total once and reuses
 * it; no write reaches the baseline, so it never has to recount.
 * For writes it does what the service's create, PATCH and transition do in their transaction:
 * the article row, the transition row for a move, and the outbox event (the service's own
 * database triggers, if any, run here too), one transaction each, with pg's pooled client.
 * Run as its own process: `tsx bench/baseline-server.ts <port>` with DATABASE_URL set.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
const tokenCache = new Map<string, { principal: Principal | null; expiresAt: number }>()

type Principal = { tenantId: string; ownerId: string }
const totals = new Map<string, Promise<number>>()

function total(tenantId: string): Promise<number> {
  let counted = totals.get(tenantId)
  if (!counted) {
    counted = pool.query(`SELECT count(*)::int AS total FROM articles WHERE tenant_id = $1`, [tenantId]).then((result) => result.rows[0].total as number)
    totals.set(tenantId, counted)
  }
  return counted
}

async function principalOf(authorization: string | undefined): Promise<Principal | null> {
  const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : ''
  const hash = createHash('sha256').update(token).digest('hex')
  const cached = tokenCache.get(hash)
  if (cached && cached.expiresAt > Date.now()) return cached.principal
  const { rows } = await pool.query(
    `SELECT t.tenant_id, t.owner_id FROM api_tokens t JOIN users u ON u.id = t.owner_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND u.active`,
    [hash],
  )
  const principal = rows[0] ? { tenantId: rows[0].tenant_id as string, ownerId: rows[0].owner_id as string } : null
  tokenCache.set(hash, { principal, expiresAt: Date.now() + 5_000 })
  return principal
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`

function readJson(req: import('node:http').IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'))
      } catch (error) {
        reject(error)
      }
    })
    req.on('error', reject)
  })
}

/** One transaction: the change, then its outbox event with the article record, as the service commits them. */
async function write(tenantId: string, kind: string, change: (client: pg.PoolClient) => Promise<Row | undefined>): Promise<Row | undefined> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const row = await change(client)
    if (!row) {
      await client.query('ROLLBACK')
      return undefined
    }
    await client.query(`INSERT INTO events (id, tenant_id, kind, occurred_at, data) VALUES ($1, $2, $3, now(), $4)`, [id('evt'), tenantId, kind, JSON.stringify(record(row))])
    await client.query('COMMIT')
    return row
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

type Row = Record<string, unknown> & { published_at: Date | null; scheduled_publish_at: Date | null; created_at: Date; updated_at: Date }

function record(row: Row) {
  return {
    article_id: row.id,
    headline: row.headline,
    lede: row.lede,
    body: row.body,
    department_id: row.department_id,
    tags: row.tags,
    status: row.status,
    author_id: row.author_id,
    published_at: row.published_at?.toISOString() ?? null,
    scheduled_publish_at: row.scheduled_publish_at?.toISOString() ?? null,
    url: row.url,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
  }
}

const columns = 'id, headline, lede, body, department_id, tags, status, author_id, published_at, scheduled_publish_at, url, created_at, updated_at, version'

const server = createServer(async (req, res) => {
  try {
    const principal = await principalOf(req.headers.authorization)
    if (!principal) return void res.writeHead(401).end()
    const { tenantId } = principal
    const url = new URL(req.url ?? '/', 'http://baseline')
    const send = (status: number, row: Row | undefined) =>
      row ? void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(record(row))) : void res.writeHead(404).end()
    if (req.method === 'POST' && url.pathname === '/v1/articles') {
      const input = await readJson(req)
      const row = await write(tenantId, 'article.created', async (client) => {
        const { rows } = await client.query(
          `INSERT INTO articles (id, tenant_id, headline, lede, body, tags, status, author_id, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 'draft', $7, now()) RETURNING ${columns}`,
          [id('art'), tenantId, input.headline, input.lede ?? null, input.body ?? null, input.tags ?? [], principal.ownerId],
        )
        return rows[0] as Row
      })
      return send(201, row)
    }
    const transition = /^\/v1\/articles\/([^/]+)\/transitions$/.exec(url.pathname)
    if (req.method === 'POST' && transition) {
      await readJson(req)
      // in-review → approved: the same work as the service's draft → in-review (a guarded update, a transition row, an event).
      const row = await write(tenantId, 'workflow.transitioned', async (client) => {
        const { rows } = await client.query(
          `UPDATE articles SET status = 'approved', version = version + 1, updated_at = now() WHERE id = $1 AND tenant_id = $2 AND status = 'in-review' RETURNING ${columns}`,
          [transition[1], tenantId],
        )
        if (!rows[0]) return undefined
        await client.query(`INSERT INTO article_transitions (id, tenant_id, article_id, from_state, to_state, actor_id) VALUES ($1, $2, $3, 'in-review', 'approved', $4)`, [
          id('trn'),
          tenantId,
          transition[1],
          principal.ownerId,
        ])
        return rows[0] as Row
      })
      return send(201, row)
    }
    const match = /^\/v1\/articles\/([^/]+)$/.exec(url.pathname)
    if (req.method === 'PATCH' && match) {
      const input = await readJson(req)
      const row = await write(tenantId, 'article.updated', async (client) => {
        const { rows } = await client.query(`UPDATE articles SET tags = $3, version = version + 1, updated_at = now() WHERE id = $1 AND tenant_id = $2 RETURNING ${columns}`, [
          match[1],
          tenantId,
          input.tags ?? [],
        ])
        return rows[0] as Row | undefined
      })
      return send(200, row)
    }
    if (match) {
      const { rows } = await pool.query(`SELECT ${columns} FROM articles WHERE id = $1 AND tenant_id = $2 LIMIT 1`, [match[1], tenantId])
      if (!rows[0]) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record(rows[0] as Row)))
      return
    }
    if (url.pathname === '/v1/articles') {
      const limit = Number(url.searchParams.get('limit') ?? 50)
      const offset = Number(url.searchParams.get('offset') ?? 0)
      // published_before, as the service reads it (the bench's cold lists): the same page
      // statement. Its total stays the newsroom's, counted once, so this is a lower bound on what
      // a page with a new filter costs (the service's kept counts answer ~0.3 ms of PostgreSQL).
      const publishedBefore = url.searchParams.get('published_before')
      const bounded = publishedBefore ? 'AND published_at < $4' : ''
      const [items, count] = await Promise.all([
        pool.query(
          `SELECT ${columns} FROM articles WHERE tenant_id = $1 ${bounded} ORDER BY published_at DESC NULLS LAST, created_at DESC, id DESC LIMIT $2 OFFSET $3`,
          publishedBefore ? [tenantId, limit, offset, new Date(publishedBefore)] : [tenantId, limit, offset],
        ),
        total(tenantId),
      ])
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ items: items.rows.map((row) => record(row as Row)), total: count, limit, offset, next_offset: offset + limit < count ? offset + limit : null }),
      )
      return
    }
    res.writeHead(404).end()
  } catch (error) {
    res.writeHead(500).end(String(error))
  }
})

server.listen(Number(process.argv[2] ?? 3401), '127.0.0.1', () => console.log('baseline ready'))
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))))
