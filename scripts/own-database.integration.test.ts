import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../tests/support/time-limits.ts'
import { runPrisma } from './run-prisma.ts'

// Two checkouts on one machine, each with its embedded database running (`npm run db:embedded`,
// as `npm run dev` starts it). `npm run tokens` in one must create its key in its own newsroom,
// and must refuse, saying whose it is, when another checkout's server sits where it looks.

const root = path.resolve(import.meta.dirname, '..')

type Checkout = { name: string; directory: string; dataDir: string; server: ChildProcess; url: string; stderr: () => string }

/** The environment of a command run in `checkout` by a developer who set nothing but what `extra` adds. */
function checkoutEnv(checkout: Pick<Checkout, 'dataDir'>, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, EMBEDDED_DB_DIR: checkout.dataDir, ...extra }
  delete env.DATABASE_URL
  if (!extra.EMBEDDED_DB_PORT) delete env.EMBEDDED_DB_PORT
  return env
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** `npm run db:embedded` in a fresh checkout; resolves once it listens, with the URL it printed. */
async function startCheckout(name: string, extra: Record<string, string> = {}): Promise<Checkout> {
  const directory = mkdtempSync(path.join(tmpdir(), `newsroom-checkout-${name}-`))
  const dataDir = path.join(directory, '.data', 'pglite')
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/embedded-db.ts')], { cwd: root, env: checkoutEnv({ dataDir }, extra), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)))
  // Waits for the condition (it says where it listens, or it exits), not for a clock: on a
  // loaded machine starting PGlite takes what it takes.
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = ''
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      const match = /listening at (\S+)/.exec(stdout)
      if (match) resolve(match[1]!)
    })
    server.once('exit', (code) => reject(new Error(`checkout ${name}: the embedded database exited (${code})\n${stderr}`)))
  })
  await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: url })
  await query(url, async (client) => {
    await client.query(`INSERT INTO tenants (id, name, slug, public_site_url, updated_at) VALUES ($1, $2, 'newsroom', 'https://example.com', now())`, [`ten_${name}`, `Newsroom ${name}`])
    await client.query(`INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at) VALUES ($1, $2, $3, 'Admin', 'admin', 'x', now())`, [`usr_${name}`, `ten_${name}`, `admin@${name}.example`])
  })
  return { name, directory, dataDir, server, url, stderr: () => stderr }
}

async function query<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

const keyNames = (checkout: Checkout) => query(checkout.url, async (client) => (await client.query<{ name: string }>('SELECT name FROM api_tokens ORDER BY created_at')).rows.map((row) => row.name))

/** `npm run tokens -- create …` in `checkout`: its exit code and what it printed. */
function createKey(checkout: Checkout, name: string, extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cli = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/tokens.ts'), 'create', '--tenant', 'newsroom', '--name', name, '--scopes', 'articles:read'], {
      cwd: root,
      env: checkoutEnv(checkout, extra),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    cli.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    cli.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    cli.once('error', reject)
    cli.once('exit', (code) => {
      resolve({ code, stdout, stderr })
    })
  })
}

async function stopCheckout(checkout: Checkout | undefined) {
  if (!checkout) return
  if (checkout.server.exitCode === null && checkout.server.signalCode === null) {
    const exited = new Promise((resolve) => checkout.server.once('exit', resolve))
    checkout.server.kill('SIGTERM')
    await exited
  }
  rmSync(checkout.directory, { recursive: true, force: true })
}

describe('npm run tokens with two checkouts on one machine', () => {
  let first: Checkout | undefined
  let second: Checkout | undefined
  beforeAll(async () => {
    first = await startCheckout('first')
    second = await startCheckout('second')
  }, setupBackstopMs)
  afterAll(async () => {
    await stopCheckout(first)
    await stopCheckout(second)
  })

  it('gives each checkout its own server, found through its own data directory', () => {
    expect(first!.url).not.toBe(second!.url)
    for (const checkout of [first!, second!]) {
      const record = JSON.parse(readFileSync(path.join(checkout.dataDir, 'newsroom-server.json'), 'utf8'))
      expect(checkout.url).toContain(`:${record.port}/`)
      expect(record.dataDir).toBe(checkout.dataDir)
    }
  })

  it("creates each checkout's keys in its own newsroom only", async () => {
    const inSecond = await createKey(second!, 'Key of the second checkout')
    expect(inSecond.code, inSecond.stderr).toBe(0)
    expect(inSecond.stdout).toMatch(/^nrs_/m)
    // Said every time, so a server's shell without DATABASE_URL cannot mistake this for production.
    expect(inSecond.stderr).toContain(`No DATABASE_URL: using this checkout's embedded development database (${second!.url}`)
    const inFirst = await createKey(first!, 'Key of the first checkout')
    expect(inFirst.code, inFirst.stderr).toBe(0)
    expect(await keyNames(first!)).toEqual(['Key of the first checkout'])
    expect(await keyNames(second!)).toEqual(['Key of the second checkout'])
  }, setupBackstopMs)

  it("refuses, naming the owner, when another checkout's server listens at the port it is told to use", async () => {
    // Both checkouts set the same EMBEDDED_DB_PORT (as both once shared 54329): the third one's
    // server holds it, and the first checkout's CLI must not write there.
    const port = await freePort()
    const third = await startCheckout('third', { EMBEDDED_DB_PORT: String(port) })
    try {
      const refused = await createKey(first!, 'Stray key', { EMBEDDED_DB_PORT: String(port) })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`The embedded database at 127.0.0.1:${port} belongs to ${third.dataDir}`)
      expect(refused.stderr).toContain('npm run dev')
      expect(await keyNames(third)).toEqual([])
      expect(await keyNames(first!)).toEqual(['Key of the first checkout'])
    } finally {
      await stopCheckout(third)
    }
  }, setupBackstopMs)
})
