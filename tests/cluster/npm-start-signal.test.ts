import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { clusterLayout } from '../../scripts/cluster-layout.ts'

// An operator, or whatever supervises the service (systemd, a container runtime), stops
// `npm start` with SIGTERM to the process it started: npm. npm passes the signal on to the shell
// that runs the start script. Unless that shell has exec'd node, the shell dies and node runs on,
// orphaned and still serving, never draining: the next start then finds its port taken.

const layout = clusterLayout()
const root = path.resolve(import.meta.dirname, '../..')
// One of the ports the cluster leaves to its tests (base+90…+99).
const port = layout.ports.spare + 1
let started: ChildProcess | undefined

afterAll(() => {
  // Whatever is left of the process group (npm, its shell, node), whatever the test found.
  if (started?.pid) {
    try {
      process.kill(-started.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
})

const answers = () =>
  fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
    (response) => response.ok,
    () => false,
  )

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return false
}

describe('npm start under a supervisor', () => {
  it('SIGTERM to npm stops the server it started, which drains and exits', async () => {
    const secrets = JSON.parse(readFileSync(path.join(layout.dir, 'secrets.json'), 'utf8')) as Record<string, string>
    started = spawn('npm', ['start', '--silent'], {
      cwd: root,
      // Its own process group, so that afterAll can clean up all of it; the signal goes to npm alone.
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...layout.appEnv, ...secrets, PORT: String(port), INSTANCE_NAME: 'npm-start', MIGRATE_ON_START: 'false', DRAIN_DELAY_MS: '0' },
    })
    const npmExited = new Promise((resolve) => started!.once('exit', resolve))
    expect(await until(answers, 90_000), 'npm start never answered /healthz').toBe(true)

    started.kill('SIGTERM')
    await npmExited
    expect(await until(async () => !(await answers()), 20_000), 'the server still answers after npm was stopped').toBe(true)
  })
})
