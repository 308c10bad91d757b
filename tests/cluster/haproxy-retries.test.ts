import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { haproxyRetryPolicy } from '../../scripts/cluster.ts'
import { pollFor, requestFrom } from './fault-support.ts'

// HAProxy with the cluster's own retry policy (scripts/cluster.ts) in front of two stand-in
// backends that read a request whole and then drop the connection without answering, as an
// instance killed mid-request does. A POST that reached a backend must not be sent again to
// the other (it may have been carried out); a GET may be.

const layout = clusterLayout()
const [proxyPort, firstPort, secondPort] = [layout.ports.spare, layout.ports.spare + 1, layout.ports.spare + 2]
const received: { method: string; backend: number }[] = []
const backends: Server[] = []
let haproxy: ChildProcess
let dir: string

beforeAll(async () => {
  for (const [index, port] of [firstPort, secondPort].entries()) {
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        received.push({ method: req.method ?? '', backend: index })
        // Read it all, answer nothing: the connection is cut.
        res.socket?.destroy()
      })
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    backends.push(server)
  }
  dir = mkdtempSync(path.join(os.tmpdir(), 'haproxy-retries-'))
  const config = path.join(dir, 'haproxy.cfg')
  writeFileSync(
    config,
    `defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
${haproxyRetryPolicy.defaults}

frontend web
  bind 127.0.0.1:${proxyPort}
  default_backend apps

backend apps
  balance roundrobin
${haproxyRetryPolicy.backend}
  server one 127.0.0.1:${firstPort}
  server two 127.0.0.1:${secondPort}
`,
  )
  haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' })
  await pollFor(async () => (await requestFrom('127.0.0.1', 'GET', `http://127.0.0.1:${proxyPort}/`).catch(() => undefined)) !== undefined, 'HAProxy on the stand-ins', 10_000, 100)
})

afterAll(async () => {
  haproxy?.kill('SIGTERM')
  await Promise.all(backends.map((server) => new Promise((resolve) => server.close(resolve))))
  rmSync(dir, { recursive: true, force: true })
})

describe("HAProxy's retries", () => {
  it('never send a POST that reached an instance to another one', async () => {
    received.length = 0
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await requestFrom('127.0.0.1', 'POST', `http://127.0.0.1:${proxyPort}/v1/articles`, { headers: { 'Content-Type': 'application/json' }, body: '{"headline":"once"}' }))
    // The client is told the request failed (and retries with its Idempotency-Key)...
    expect(answers.map((answer) => answer.status)).toEqual([502, 502, 502, 502])
    // ...and each POST was executed once, not once per instance.
    expect(received.filter((request) => request.method === 'POST')).toHaveLength(4)
  })

  it('still retry a GET an instance dropped on another instance', async () => {
    received.length = 0
    await requestFrom('127.0.0.1', 'GET', `http://127.0.0.1:${proxyPort}/v1/articles`)
    expect(received.filter((request) => request.method === 'GET').length).toBeGreaterThan(1)
  })
})
