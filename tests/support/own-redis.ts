import { spawn } from 'node:child_process'
import net from 'node:net'
import { Redis } from 'ioredis'

/** A port on 127.0.0.1 that nothing listens on (for a server to start on, or to find nothing). */
export async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A Redis server of the test's own on `port`: pausing, restarting or flushing it disturbs no one
 * (the shared test Redis is never paused, restarted or flushed). `dir` keeps its data across a
 * restart (SHUTDOWN SAVE).
 */
export async function startOwnRedis(port: number, dir?: string) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(dir ? ['--dir', dir] : [])], { stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 90_000)
  await waitUntil(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket.end() && true))
        socket.once('error', () => resolve(false))
      }),
    `redis-server on ${port} to listen`,
  )
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, retryStrategy: () => null })
  await client.ping()
  return {
    client,
    url: `redis://127.0.0.1:${port}`,
    /** Stops the server: SHUTDOWN NOSAVE loses everything, as a Redis without persistence does (or a failover to an empty replica). */
    stop: async (save = false) => {
      await client.call('SHUTDOWN', save ? 'SAVE' : 'NOSAVE').catch(() => undefined)
      client.disconnect()
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))])
      child.kill('SIGKILL')
      clearTimeout(killTimer)
    },
  }
}
