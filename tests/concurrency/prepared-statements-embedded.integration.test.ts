import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../lib/db/embedded-server.ts'
import { preparedQuery } from '../../lib/db/prepared-query.ts'

// The embedded store serves every connection from PGlite's one session, so a statement name one
// connection prepared is taken for all of them. What open editors repeat (the session read, the
// lease renewal) is prepared under a name per connection: many connections and two processes'
// pools asking at once must all be answered, as on PostgreSQL.

let embedded: EmbeddedDatabase
let dataDir: string

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'newsroom-prepared-'))
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  embedded = await startEmbeddedDatabase({ dataDir, port })
}, 60_000)
afterAll(async () => {
  await embedded?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('prepared statements on the embedded store', () => {
  it('answers the same named statement on many connections of two pools at once, again and again', async () => {
    const pools = [new pg.Pool({ connectionString: embedded.url, max: 4 }), new pg.Pool({ connectionString: embedded.url, max: 4 })]
    try {
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          Array.from({ length: 16 }, (_, i) => preparedQuery<{ n: number }>(pools[i % 2]!, 'same-name', 'SELECT $1::int + 1 AS n', [i]).then((result) => result.rows[0]!.n)),
        )
        expect(answers).toEqual(Array.from({ length: 16 }, (_, i) => i + 1))
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.end()))
    }
  })

  it('lets a failed statement fail only its caller: the connection is replaced, the next call is answered', async () => {
    const pool = new pg.Pool({ connectionString: embedded.url, max: 1 })
    try {
      await expect(preparedQuery(pool, 'divides', 'SELECT 1 / $1::int AS n', [0])).rejects.toThrow(/division by zero/)
      expect((await preparedQuery<{ n: number }>(pool, 'divides', 'SELECT 1 / $1::int AS n', [1])).rows[0]!.n).toBe(1)
    } finally {
      await pool.end()
    }
  })
})
