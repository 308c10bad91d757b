import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { hashPassword } from '../lib/auth/passwords.ts'
import { createId } from '../lib/ids.ts'
import { startCommand } from '../scripts/start-command.ts'
import { runJsonScript } from './json-script.ts'
import { load, waitFor } from './load.ts'
import type { OpenEditorsResult } from './open-editors.ts'
import { cpuPerRequest, cpuSnapshot, type CpuShares } from './process-cpu.ts'

/** One round's figures: get-by-id alone and beside the open editors, and the editors alone. */
export type EditorAwarenessRound = {
  /** GET /v1/articles/{id} req/s without and with the editors open, and the CPU per request of each turn. */
  without: number
  with: number
  cpu: { without: CpuShares; with: CpuShares }
  /** The editors alone (no other load): CPU spent per second, in ms, by each process. */
  idle: { serverMsPerSecond: number; postgresMsPerSecond: number; redisMsPerSecond: number }
  /** Nobody at all (no editors, no load): what the processes spend per second anyway (timers, the outbox sweeper). */
  quiet: { serverMsPerSecond: number; postgresMsPerSecond: number; redisMsPerSecond: number }
  /** What the editors asked during that window and how they were answered. */
  editors: OpenEditorsResult
}

export type EditorAwarenessHttp = { editors: number; turnSeconds: number; rounds: EditorAwarenessRound[] }

const editors = Number(process.env.BENCH_EDITORS ?? 200)
const rounds = Number(process.env.BENCH_EDITOR_ROUNDS ?? 6)
const turnSeconds = Number(process.env.BENCH_EDITOR_TURN_SECONDS ?? 10)
// Long enough for every page to open, claim its lease and see its own claim once: two poll
// intervals after the last claim.
const rampSeconds = 8
const quietSeconds = 5
const password = 'open-editor-bench-password'

/**
 * What open editors cost the service, through HTTP (issue 29's "Done when"): `editors` people
 * signed in to the portal (real sessions: next-auth's credentials sign-in, one each), each with
 * another draft open and unsaved edits in it, polling and renewing as the portal's page does
 * (bench/open-editors.ts). Each round starts a fresh production server and measures, in turns
 * whose order alternates between rounds, GET /v1/articles/{id} (cache warm) with nobody editing
 * and with the editors open; then the editors alone, to say what they cost per second.
 */
export async function measureEditorAwarenessHttp(options: {
  serviceEnv: NodeJS.ProcessEnv
  port: number
  token: string
  tenantId: string
  path: string
  children: ChildProcess[]
  log: (message: string) => void
}): Promise<EditorAwarenessHttp> {
  const url = `http://127.0.0.1:${options.port}`
  // next-auth builds its callback addresses from NEXTAUTH_URL: the address the editors use.
  const env = { ...options.serviceEnv, PORT: String(options.port), NEXTAUTH_URL: url }
  const pool = new pg.Pool({ connectionString: options.serviceEnv.DATABASE_URL, max: 2 })
  const start = async () => {
    // BENCH_PROFILE=<dir>: each of these servers writes its CPU profile there too when stopped.
    const [shell, args] = startCommand(undefined, { nodeFlags: process.env.BENCH_PROFILE ? `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE}` : undefined })
    const child = spawn(shell, args, { stdio: ['ignore', 'ignore', 'inherit'], env })
    options.children.push(child)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await waitFor(`${url}/v1/openapi.json`)
    return { child, stop: async () => (child.kill('SIGTERM'), await exited) }
  }

  // The editors: members of the large newsroom, each with a draft of its own open.
  const passwordHash = await hashPassword(password)
  const people = Array.from({ length: editors }, (_, index) => ({ id: createId('usr'), email: `open-editor-${index}-${options.tenantId.slice(-10).toLowerCase()}@bench.example` }))
  await pool.query(`DELETE FROM users WHERE tenant_id = $1 AND email LIKE 'open-editor-%@bench.example'`, [options.tenantId])
  await pool.query(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT id, $1, email, 'Open editor ' || n, 'editor', $2, now() FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS p(id, email, n)`,
    [options.tenantId, passwordHash, people.map((person) => person.id), people.map((person) => person.email)],
  )
  const drafts = (await pool.query<{ id: string }>(`SELECT id FROM articles WHERE tenant_id = $1 AND status = 'draft' ORDER BY id DESC LIMIT $2`, [options.tenantId, editors])).rows.map((row) => row.id)
  if (drafts.length < editors) throw new Error(`only ${drafts.length} drafts for ${editors} editors`)

  const result: EditorAwarenessHttp = { editors, turnSeconds, rounds: [] }
  const cookies: string[] = []
  try {
    for (let round = 0; round < rounds; round++) {
      const server = await start()
      try {
        // Signed in once, through the portal's own sign-in; the sessions outlive the servers.
        if (cookies.length === 0) {
          options.log(`open editors: ${editors} sign-ins`)
          for (const person of people) cookies.push(await signIn(url, person.email))
        }
        await load({ url, token: options.token, method: 'GET', path: options.path, duration: 3 })
        const quietFrom = cpuSnapshot(server.child.pid!)
        const quietStarted = performance.now()
        await new Promise((resolve) => setTimeout(resolve, quietSeconds * 1000))
        const quiet = cpuPerRequest(quietFrom, cpuSnapshot(server.child.pid!), 1_000)
        const quietElapsed = (performance.now() - quietStarted) / 1000
        const turns = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)
        const perQuietSecond = (spent: number) => Math.round((spent / quietElapsed) * 10) / 10
        const measured: Partial<EditorAwarenessRound> = {
          cpu: {} as EditorAwarenessRound['cpu'],
          quiet: { serverMsPerSecond: perQuietSecond(quiet.server), postgresMsPerSecond: perQuietSecond(quiet.postgres), redisMsPerSecond: perQuietSecond(quiet.redis) },
        }
        for (const turn of turns) {
          if (turn === 'without') {
            const before = cpuSnapshot(server.child.pid!)
            const answer = await load({ url, token: options.token, method: 'GET', path: options.path, duration: turnSeconds })
            measured.without = answer.rps
            measured.cpu!.without = { ...cpuPerRequest(before, cpuSnapshot(server.child.pid!), answer.requests), loadGenerator: Math.round((answer.cpuMs * 1000) / Math.max(1, answer.requests)) }
            continue
          }
          // The editors open their pages, then get-by-id runs beside them, then they run alone; they
          // keep going a few seconds past both (the load generator takes a moment to start).
          const config = { url, editors: cookies.map((cookie, index) => ({ cookie, articleId: drafts[index]! })), rampSeconds, steadySeconds: turnSeconds * 2 + 5 }
          const configFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-editors-')), 'editors.json')
          writeFileSync(configFile, JSON.stringify(config))
          const editorsDone = runJsonScript<OpenEditorsResult>('bench/open-editors.ts', { args: [configFile] })
          await new Promise((resolve) => setTimeout(resolve, rampSeconds * 1000))
          const before = cpuSnapshot(server.child.pid!)
          const answer = await load({ url, token: options.token, method: 'GET', path: options.path, duration: turnSeconds })
          const between = cpuSnapshot(server.child.pid!)
          measured.with = answer.rps
          measured.cpu!.with = { ...cpuPerRequest(before, between, answer.requests), loadGenerator: Math.round((answer.cpuMs * 1000) / Math.max(1, answer.requests)) }
          const aloneStarted = performance.now()
          await new Promise((resolve) => setTimeout(resolve, turnSeconds * 1000))
          const alone = cpuPerRequest(between, cpuSnapshot(server.child.pid!), 1_000)
          const aloneSeconds = (performance.now() - aloneStarted) / 1000
          // cpuPerRequest over 1,000 "requests" gives ms in all; per second of the window:
          const perSecond = (spent: number) => Math.round((spent / aloneSeconds) * 10) / 10
          measured.idle = { serverMsPerSecond: perSecond(alone.server), postgresMsPerSecond: perSecond(alone.postgres), redisMsPerSecond: perSecond(alone.redis) }
          measured.editors = await editorsDone
        }
        result.rounds.push(measured as EditorAwarenessRound)
        const last = result.rounds.at(-1)!
        options.log(
          `open editors, round ${round + 1}/${rounds}: get-by-id ${Math.round(last.without)} req/s without, ${Math.round(last.with)} with; ` +
            `editors alone ${last.idle.serverMsPerSecond} ms/s of service CPU (nobody: ${last.quiet.serverMsPerSecond}), ${last.editors.watches} polls (${last.editors.unchanged} unchanged), ${last.editors.renewals} renewals, ${last.editors.errors} errors`,
        )
      } finally {
        await server.stop()
      }
    }
  } finally {
    await pool.query(`DELETE FROM portal_sessions WHERE user_id = ANY($1::text[])`, [people.map((person) => person.id)]).catch(() => undefined)
    await pool.query(`DELETE FROM users WHERE id = ANY($1::text[])`, [people.map((person) => person.id)]).catch(() => undefined)
    await pool.end()
  }
  return result
}

/** next-auth's credentials sign-in, as the portal's sign-in page makes it; returns the session cookie. */
async function signIn(url: string, email: string): Promise<string> {
  const csrf = await fetch(`${url}/api/auth/csrf`)
  const jar = cookiesOf(csrf)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const answer = await fetch(`${url}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
    body: new URLSearchParams({ email, password, csrfToken, json: 'true' }),
  })
  const session = cookiesOf(answer).find((cookie) => cookie.split('=', 1)[0]!.endsWith('next-auth.session-token'))
  if (!session) throw new Error(`signing in ${email} answered ${answer.status} without a session cookie: ${(await answer.text()).slice(0, 200)}`)
  return session
}

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((cookie) => cookie.split(';', 1)[0]!)
}
