import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { startMigratedEmbeddedDatabase } from '../../tests/support/embedded-database.ts'
import { maxPreparedPerConnection, preparedQuery } from './prepared-query.ts'

// Named prepared statements outlive nothing they should: on the embedded store, one PGlite
// session serves every connection, so a connection the pool closes must take its statements
// with it, as a PostgreSQL backend does.

const statements = ['first', 'second', 'third', 'fourth'].map((word, index) => ({ name: `leak-check-${word}`, text: `SELECT ${index} + $1::int AS n` }))

async function roundsOfShortLivedConnections(pool: pg.Pool, rounds: number): Promise<number[]> {
  const answers: number[] = []
  for (let round = 0; round < rounds; round++) {
    const rows = await Promise.all(statements.map(({ name, text }) => preparedQuery<{ n: number }>(pool, name, text, [round])))
    answers.push(...rows.map((result) => result.rows[0]!.n))
    // Longer than the pool's idle timeout: every connection closes, and the next round opens new ones.
    await sleep(150)
  }
  return answers
}

const leftPrepared = async (pool: pg.Pool) =>
  (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'leak-check-%'")).rows[0]!.n

async function eventually(read: () => Promise<number>, expected: number): Promise<number> {
  let seen = await read()
  for (let i = 0; i < 40 && seen !== expected; i++) {
    await sleep(50)
    seen = await read()
  }
  return seen
}

describe('on the embedded store', () => {
  let database: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
  let pool: pg.Pool
  beforeAll(async () => {
    database = await startMigratedEmbeddedDatabase()
    pool = new pg.Pool({ connectionString: database.url, max: 4, idleTimeoutMillis: 50 })
  }, 120_000)
  afterAll(async () => {
    await pool?.end()
    await database?.stop()
  })

  it('drops the statements a connection prepared when the pool closes it, so ten rounds of new connections leave none behind', async () => {
    const answers = await roundsOfShortLivedConnections(pool, 10)
    expect(answers).toEqual(Array.from({ length: 10 }, (_, round) => [0, 1, 2, 3].map((index) => index + round)).flat())
    // Once every connection of the last round is idle long enough to close, nothing of theirs is left.
    expect(await eventually(() => leftPrepared(pool), 0)).toBe(0)
  })
})

describe('on PostgreSQL', () => {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4, idleTimeoutMillis: 50 })
  afterAll(() => pool.end())

  it('answers the same across connections the pool closes and opens again', async () => {
    expect(await roundsOfShortLivedConnections(pool, 3)).toEqual([0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5])
  })

  it('keeps a bounded number of statements prepared on one connection: a client sending every subset of fields cannot grow the server by a plan each', async () => {
    const one = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 })
    try {
      const texts = Array.from({ length: maxPreparedPerConnection + 20 }, (_, index) => `SELECT ${index} + $1::int AS n`)
      const answers: number[] = []
      for (const [index, text] of texts.entries()) answers.push((await preparedQuery<{ n: number }>(one, `cap-check-${index}`, text, [1])).rows[0]!.n)
      // Every statement still answers; only the first ones are kept prepared.
      expect(answers).toEqual(texts.map((_, index) => index + 1))
      const kept = (await one.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'cap-check-%'")).rows[0]!.n
      expect(kept).toBe(maxPreparedPerConnection)
      // One prepared before runs prepared again.
      expect((await preparedQuery<{ n: number }>(one, 'cap-check-0', texts[0]!, [5])).rows[0]!.n).toBe(5)
    } finally {
      await one.end()
    }
  })
})
