/**
 * The practical limit of this machine for the list and get endpoints: node:http and pg with
 * the same token lookup (hash, 5 s cache) and the same SQL as the service, no framework.
 * Like the service (lib/articles/article-totals.ts), it counts a list's total once and reuses
 * it; no write reaches the baseline, so it never has to recount.
 * Run as its own process: `tsx bench/baseline-server.ts <port>` with DATABASE_URL set.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
const tokenCache = new Map<string, { tenantId: string | null; expiresAt: number }>()
const totals = new Map<string, Promise<number>>()

function total(tenantId: string): Promise<number> {
  let counted = totals.get(tenantId)
  if (!counted) {
    counted = pool.query(`SELECT count(*)::int AS total FROM articles WHERE tenant_id = $1`, [tenantId]).then((result) => result.rows[0].total as number)
    totals.set(tenantId, counted)
  }
  return counted
}

async function tenantOf(authorization: string | undefined): Promise<string | null> {
  const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : ''
  const hash = createHash('sha256').update(token).digest('hex')
  const cached = tokenCache.get(hash)
  if (cached && cached.expiresAt > Date.now()) return cached.tenantId
  const { rows } = await pool.query(
    `SELECT t.tenant_id FROM api_tokens t JOIN users u ON u.id = t.owner_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND u.active`,
    [hash],
  )
  const tenantId = (rows[0]?.tenant_id as string | undefined) ?? null
  tokenCache.set(hash, { tenantId, expiresAt: Date.now() + 5_000 })
  return tenantId
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
    const tenantId = await tenantOf(req.headers.authorization)
    if (!tenantId) return void res.writeHead(401).end()
    const url = new URL(req.url ?? '/', 'http://baseline')
    const match = /^\/v1\/articles\/([^/]+)$/.exec(url.pathname)
    if (match) {
      const { rows } = await pool.query(`SELECT ${columns} FROM articles WHERE id = $1 AND tenant_id = $2 LIMIT 1`, [match[1], tenantId])
      if (!rows[0]) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record(rows[0] as Row)))
      return
    }
    if (url.pathname === '/v1/articles') {
      const limit = Number(url.searchParams.get('limit') ?? 50)
      const offset = Number(url.searchParams.get('offset') ?? 0)
      const [items, count] = await Promise.all([
        pool.query(`SELECT ${columns} FROM articles WHERE tenant_id = $1 ORDER BY published_at DESC NULLS LAST, created_at DESC, id DESC LIMIT $2 OFFSET $3`, [tenantId, limit, offset]),
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
