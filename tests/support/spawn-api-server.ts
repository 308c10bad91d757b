import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

const entry = path.resolve(import.meta.dirname, 'api-server-process.ts')

export type ServedTenant = { id: string; token: string; departmentIds: string[] }

export type SpawnedApiServer = {
  url: string
  tenant?: ServedTenant
  tenants?: ServedTenant[]
  child: ChildProcess
  /** Everything the process wrote to stderr so far (its request logs), for failure messages. */
  stderr: () => string
  /** The last 200 KB the process wrote to stdout (its application log). */
  stdout: () => string
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<void>
  /** Ends the process: SIGTERM, then SIGKILL if it is still there after a moment. */
  stop: () => Promise<void>
}

/**
 * Starts api-server-process.ts against `databaseUrl` and waits for its `ready` line.
 * Rejects (and kills the process) if it does not come up within `timeoutMs`.
 */
export async function spawnApiServer(databaseUrl: string, options: { tenant?: boolean; tenants?: number; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<SpawnedApiServer> {
  const tenantArguments = [...(options.tenant ? ['--tenant'] : []), ...(options.tenants ? [`--tenants=${options.tenants}`] : [])]
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...tenantArguments], {
    env: { ...process.env, ...options.env, DATABASE_URL: databaseUrl },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  let stdout = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    // Bounded: a long fault run logs a line per refused request.
    stderr = (stderr + chunk).slice(-200_000)
  })
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })

  const ready = await new Promise<{ url: string; tenant?: ServedTenant; tenants?: ServedTenant[] }>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`The API server process did not start within ${options.timeoutMs ?? 30_000} ms.`)), options.timeoutMs ?? 30_000)
    const fail = (error: Error) => {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(new Error(`${error.message}\nstdout: ${stdout}\nstderr: ${stderr.slice(-4_000)}`))
    }
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-200_000)
      const line = /^ready (.*)$/m.exec(stdout)
      if (!line) return
      clearTimeout(timer)
      resolve(JSON.parse(line[1]!))
    })
    child.once('exit', (code, signal) => fail(new Error(`The API server process exited early (${signal ?? code}).`)))
    child.once('error', fail)
  })

  return {
    ...ready,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 3_000)
      await exited
      clearTimeout(killer)
    },
  }
}
