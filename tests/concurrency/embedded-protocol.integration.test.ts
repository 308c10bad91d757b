import { connect } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'

/**
 * The embedded database's socket server shares PGlite's one session between connections.
 * These hold its promise at the wire level (patches/@electric-sql+pglite-socket+*.patch):
 * an extended-query cycle (Parse … Sync) is never interleaved with another connection's, and
 * a connection that leaves in the middle of one does not keep the session.
 */
let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
beforeAll(async () => {
  embedded = await startMigratedEmbeddedDatabase()
}, setupBackstopMs)
afterAll(() => embedded?.stop())

function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  const header = Buffer.alloc(5)
  header.write(type, 0, 'latin1')
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}
const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8')
const int16 = (value: number) => Buffer.from([value >> 8, value & 0xff])

/** A bare wire-protocol client, so a test can decide exactly when each message is sent. */
async function rawConnection(databaseUrl: string) {
  const url = new URL(databaseUrl)
  const socket = connect({ host: url.hostname, port: Number(url.port) })
  let received = Buffer.alloc(0)
  let waiting: (() => void) | undefined
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk])
    waiting?.()
  })
  const readyForQuery = Buffer.from([0x5a, 0, 0, 0, 5])
  /** Everything received up to and including the next ReadyForQuery. */
  const untilReady = () =>
    new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no ReadyForQuery within 10 s')), 10_000)
      const check = () => {
        const end = received.indexOf(readyForQuery)
        if (end === -1) return
        const answer = received.subarray(0, end + 6)
        received = received.subarray(end + 6)
        clearTimeout(timer)
        waiting = undefined
        resolve(answer)
      }
      waiting = check
      check()
    })
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    socket.once('connect', () => resolve())
  })
  const startup = Buffer.concat([Buffer.from([0, 3, 0, 0]), cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres'), Buffer.from([0])])
  const length = Buffer.alloc(4)
  length.writeInt32BE(startup.length + 4)
  socket.write(Buffer.concat([length, startup]))
  await untilReady()
  return { send: (...messages: Buffer[]) => socket.write(Buffer.concat(messages)), untilReady, destroy: () => socket.destroy() }
}

const parse = (sql: string) => message('P', cstring(''), cstring(sql), int16(0))
const bind = () => message('B', cstring(''), cstring(''), int16(0), int16(0), int16(0))
const execute = () => message('E', cstring(''), Buffer.from([0, 0, 0, 0]))
const sync = () => message('S')
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the embedded database under concurrent connections', () => {
  it('keeps a cycle whole while another connection sends its own in the middle of it', async () => {
    // A parses and binds; B sends a whole cycle; only then does A execute and sync. Without
    // the patch B's Parse replaces A's unnamed statement and A silently gets B's row.
    const first = await rawConnection(embedded.url)
    const second = await rawConnection(embedded.url)
    try {
      first.send(parse("SELECT 'answer for A'::text"), bind())
      await pause(100)
      second.send(parse("SELECT 'answer for B'::text"), bind(), execute(), sync())
      await pause(100)
      first.send(execute(), sync())
      const [firstAnswer, secondAnswer] = await Promise.all([first.untilReady(), second.untilReady()])
      expect(firstAnswer.toString('latin1')).toContain('answer for A')
      expect(firstAnswer.toString('latin1')).not.toContain('answer for B')
      expect(secondAnswer.toString('latin1')).toContain('answer for B')
    } finally {
      first.destroy()
      second.destroy()
    }
  })

  it('frees the session when a connection leaves in the middle of a cycle', async () => {
    // Start-up, then Parse and Bind with no Sync, then gone.
    const leaving = await rawConnection(embedded.url)
    leaving.send(parse('SELECT 1'), bind())
    await pause(200)
    leaving.destroy()

    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ answer: string }>('SELECT $1::text AS answer', ['still served'])
      expect(rows[0]!.answer).toBe('still served')
    } finally {
      await client.end()
    }
  })
})
