import { execFile, execFileSync } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const binDir = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin'
const osUser = 'postgres'

/** A port nobody listens on right now (the kernel picks it). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export type PrivatePostgres = {
  url: string
  port: number
  dir: string
  stop: (mode?: 'fast' | 'immediate') => Promise<void>
  start: () => Promise<void>
  restart: (mode?: 'fast' | 'immediate') => Promise<void>
  /** Stops the server if it runs and deletes its files; safe to call more than once. */
  destroy: () => Promise<void>
}

// Clusters still running when the test process exits (a crashed or interrupted run) are
// stopped on the way out, so no stray server keeps a port and a temp directory.
const live = new Set<() => void>()
process.once('exit', () => live.forEach((stopNow) => stopNow()))

/**
 * A PostgreSQL cluster of the test's own, for faults that stop or restart the server: the
 * shared server on 5432 serves every other test file and must never go down. initdb and
 * pg_ctl refuse to run as root, so they run as the postgres OS user, in a temporary
 * directory it owns; the server listens on 127.0.0.1 only, with its socket in that directory.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-pg-'))
  const dataDir = path.join(dir, 'data')
  const logFile = path.join(dir, 'server.log')
  const asPostgres = (command: string, args: string[]) =>
    process.getuid?.() === 0 ? run('runuser', ['-u', osUser, '--', path.join(binDir, command), ...args]) : run(path.join(binDir, command), args)
  if (process.getuid?.() === 0) chownSync(dir, ...(await postgresIds()))

  const port = await freePort()
  const pgCtl = (args: string[]) => asPostgres('pg_ctl', ['-D', dataDir, ...args])
  // -w waits until the server accepts connections (or the timeout, in seconds, passes).
  const start = async () => {
    await pgCtl(['-l', logFile, '-w', '-t', '30', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, 'start'])
  }
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await pgCtl(['-w', '-t', '30', '-m', mode, 'stop'])
  }
  const stopNow = () => {
    try {
      const args = ['-D', dataDir, '-m', 'immediate', 'stop']
      if (process.getuid?.() === 0) execFileSync('runuser', ['-u', osUser, '--', path.join(binDir, 'pg_ctl'), ...args], { stdio: 'ignore' })
      else execFileSync(path.join(binDir, 'pg_ctl'), args, { stdio: 'ignore' })
    } catch {
      // Not running.
    }
    rmSync(dir, { recursive: true, force: true })
  }
  live.add(stopNow)
  try {
    await asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C'])
    await start()
  } catch (error) {
    live.delete(stopNow)
    rmSync(dir, { recursive: true, force: true })
    throw error
  }

  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stop,
    restart: async (mode = 'fast') => {
      await pgCtl(['-l', logFile, '-w', '-t', '30', '-m', mode, '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, 'restart'])
    },
    destroy: async () => {
      live.delete(stopNow)
      // Whatever state a failed test left it in: a stopped server makes this fail harmlessly.
      await stop('immediate').catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A hot standby of `primary` (pg_basebackup -R: it streams the primary's WAL from its first
 * moment and takes read-only connections), in a temporary directory and on a port of its own.
 */
export async function startPrivateReplica(primary: PrivatePostgres): Promise<{ url: string; destroy: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-pg-replica-'))
  const dataDir = path.join(dir, 'data')
  const logFile = path.join(dir, 'server.log')
  const asPostgres = (command: string, args: string[]) =>
    process.getuid?.() === 0 ? run('runuser', ['-u', osUser, '--', path.join(binDir, command), ...args]) : run(path.join(binDir, command), args)
  if (process.getuid?.() === 0) chownSync(dir, ...(await postgresIds()))
  const port = await freePort()
  const stopNow = () => {
    try {
      const args = ['-D', dataDir, '-m', 'immediate', 'stop']
      if (process.getuid?.() === 0) execFileSync('runuser', ['-u', osUser, '--', path.join(binDir, 'pg_ctl'), ...args], { stdio: 'ignore' })
      else execFileSync(path.join(binDir, 'pg_ctl'), args, { stdio: 'ignore' })
    } catch {
      // Not running.
    }
    rmSync(dir, { recursive: true, force: true })
  }
  live.add(stopNow)
  try {
    await asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream'])
    await asPostgres('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '30', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c hot_standby=on`, 'start'])
  } catch (error) {
    live.delete(stopNow)
    stopNow()
    throw error
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    destroy: async () => {
      live.delete(stopNow)
      stopNow()
    },
  }
}

async function postgresIds(): Promise<[number, number]> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', osUser]), run('id', ['-g', osUser])])
  return [Number(uid.trim()), Number(gid.trim())]
}
