import { spawn } from 'node:child_process'
import path from 'node:path'
import pg from 'pg'
import { expect, it } from 'vitest'

// A connection the database server cuts while the app holds it checked out (a restart, a
// failover, HAProxy's shutdown-sessions) fails what it was doing; it must not end the process.
// Before lib/db/heard-errors.ts, the app's process died of an unheard 'error' event, taking every
// request of the instance with it (seen in postgres-restart.integration.test.ts as ECONNREFUSED).

// This file's own database (tests/support/database-per-file.ts).
const databaseUrl = process.env.DATABASE_URL!

it('survives the server cutting a connection it holds checked out', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../support/hold-connection-process.ts')], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const backend = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      const found = /^backend (\d+)$/m.exec(stdout)
      if (found) resolve(Number(found[1]))
    })
    void exited.then((code) => reject(new Error(`exited early (${code}): ${stderr}`)))
  })
  // The server ends that one backend (as a restart or a failover ends them all).
  const admin = new pg.Client({ connectionString: databaseUrl })
  await admin.connect()
  try {
    expect((await admin.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [backend])).rows[0]!.done).toBe(true)
  } finally {
    await admin.end()
  }
  expect(await exited, stderr).toBe(0)
  expect(stdout).toContain('survived')
}, 90_000)
