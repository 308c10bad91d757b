import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { requestFrom } from './fault-support.ts'

// Found by the issue-49 tester: docs/deploy.md's "TLS, NEXTAUTH_URL and X-Forwarded-Proto" puts
// one HAProxy in front of everything (Varnish included, for /content/) and says the apps run with
// TRUSTED_PROXY_HOPS=1. That frontend, as the guide writes it (TLS aside: a plain bind stands for
// `bind :443 ssl crt …`), in front of the cluster's Varnish and instances (which run with 1):
// two public clients of the content API must keep separate per-address budgets.

const layout = clusterLayout()
const frontPort = layout.base + 96
// Varnish as the guide runs it behind that HAProxy: its own listener taking the PROXY protocol.
const varnishPort = layout.base + 97
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-tls-front-'))
const unauthenticatedBudget = Number(process.env.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE)
let haproxy: ChildProcess
let varnish: ChildProcess

beforeAll(async () => {
  const apps = layout.ports.apps.map((port, index) => `  server app-${index + 1} 127.0.0.1:${port}`).join('\n')
  writeFileSync(
    path.join(dir, 'haproxy.cfg'),
    `defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s

frontend https
  bind 127.0.0.1:${frontPort}
  http-request set-header X-Forwarded-Proto https if { ssl_fc }
  http-request del-header X-Forwarded-For
  option forwardfor
  use_backend varnish if { path_beg /content/ }
  default_backend apps

backend varnish
  server varnish 127.0.0.1:${varnishPort} send-proxy-v2

backend apps
${apps}
`,
  )
  // The cluster's VCL (its backend is the cluster's content frontend), on a PROXY listener.
  varnish = spawn('varnishd', ['-F', '-a', `127.0.0.1:${varnishPort},PROXY`, '-f', path.join(layout.dir, 'content.vcl'), '-n', path.join(dir, 'varnish'), '-s', 'malloc,16m', '-T', 'none'], { stdio: 'ignore' })
  haproxy = spawn('haproxy', ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: 'ignore' })
  for (let i = 0; i < 50; i++) {
    try {
      await requestFrom('127.0.0.1', 'GET', `http://127.0.0.1:${frontPort}/healthz`, { timeoutMs: 1_000 })
      const content = await requestFrom('127.0.0.1', 'GET', `http://127.0.0.1:${frontPort}/content/v1/openapi.json`, { timeoutMs: 1_000 })
      if (content.status === 200) return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error('the guide-shaped HAProxy did not start')
})

afterAll(() => {
  if (haproxy?.pid) process.kill(haproxy.pid, 'SIGTERM')
  if (varnish?.pid) process.kill(varnish.pid, 'SIGTERM')
  rmSync(dir, { recursive: true, force: true })
})

describe("the guide's TLS front, in front of Varnish and the apps", () => {
  it('keeps two content API clients on separate per-address budgets', async () => {
    const front = `http://127.0.0.1:${frontPort}`
    // Unknown keys count against the address's unauthenticated budget; each URL its own (uncached).
    const guess = (address: string, i: number) => requestFrom(address, 'GET', `${front}/content/v1/articles?key=nrc_unknown_${address}_${i}_${Date.now()}`)
    const mallorys: number[] = []
    for (let i = 0; i <= unauthenticatedBudget; i++) mallorys.push((await guess('127.0.0.2', i)).status)
    expect(mallorys.at(-1)).toBe(429)
    // Alice, another address, is not punished for Mallory's guesses.
    expect((await guess('127.0.0.3', 0)).status).toBe(401)
  })
})
