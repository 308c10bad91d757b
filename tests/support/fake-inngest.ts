import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type CapturedEvent = { id: string; name: string; data: any; ts?: number; receivedAt: number }
export type ExecutorOp = { id: string; op: string; name?: string; displayName?: string; data?: any; error?: any; opts?: any }

type RunState = { steps: Record<string, unknown>; stack: string[]; checkpointed: ExecutorOp[] }

/**
 * A stand-in for Inngest on 127.0.0.1: the event API the SDK sends to (POST /e/<key>), the
 * checkpoint API v4 functions report finished steps to, and an executor that drives a
 * function over its serve endpoint the way Inngest does — POST the event with the memoised
 * step results, fold in what comes back, repeat until the function returns. Point the app at
 * it with INNGEST_DEV=<url> (dev mode: requests are not signed).
 */
export async function startFakeInngest(options: { port?: number } = {}) {
  const events: CapturedEvent[] = []
  const runs = new Map<string, RunState>()
  const listeners = new Set<() => void>()
  let server: Server | undefined
  let port = options.port ?? 0

  const handle: Parameters<typeof createServer>[1] = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const url = new URL(req.url ?? '/', 'http://fake')
      if (req.method === 'POST' && url.pathname.startsWith('/e/')) {
        const payload = JSON.parse(text) as any
        const batch: any[] = Array.isArray(payload) ? payload : [payload]
        const receivedAt = performance.now()
        for (const event of batch) events.push({ id: event.id, name: event.name, data: event.data, ts: event.ts, receivedAt })
        listeners.forEach((listener) => listener())
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ids: batch.map((event) => event.id ?? randomUUID()), status: 200 }))
        return
      }
      const checkpoint = /^\/v1\/checkpoint\/([^/]+)\/async$/.exec(url.pathname)
      if (req.method === 'POST' && checkpoint) {
        const run = runs.get(decodeURIComponent(checkpoint[1]!))
        const body = JSON.parse(text) as { steps: ExecutorOp[] }
        if (run) {
          for (const op of body.steps) {
            run.checkpointed.push(op)
            memoise(run, op)
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
        return
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `fake Inngest has no ${req.method} ${url.pathname}` }))
    })
  }

  async function start(): Promise<void> {
    server = createServer(handle)
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  }

  async function stop(): Promise<void> {
    if (!server) return
    const closing = server
    server = undefined
    await new Promise((resolve) => { closing.closeAllConnections(); closing.close(resolve) })
  }

  /** Resolves once `count` events matching `match` have arrived (or rejects after `timeoutMs`). */
  function waitForEvents(match: (event: CapturedEvent) => boolean, count = 1, timeoutMs = 10_000): Promise<CapturedEvent[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = events.filter(match)
        if (found.length < count) return false
        listeners.delete(check)
        clearTimeout(timer)
        resolve(found)
        return true
      }
      const timer = setTimeout(() => {
        listeners.delete(check)
        reject(new Error(`Timed out waiting for ${count} event(s); have ${events.filter(match).length}.`))
      }, timeoutMs)
      if (!check()) listeners.add(check)
    })
  }

  /**
   * Runs one function to completion over HTTP as Inngest's executor would; sleeps are
   * treated as already elapsed. Returns the function's output and every op seen, in order.
   */
  async function runFunction(
    appUrl: string,
    functionSlug: string,
    event: { id?: string; name: string; data: unknown; ts?: number },
    options: { maxRequests?: number; sign?: (body: string) => string } = {},
  ) {
    const maxRequests = options.maxRequests ?? 40
    const runId = `run_${randomUUID()}`
    const run: RunState = { steps: {}, stack: [], checkpointed: [] }
    runs.set(runId, run)
    const ops: ExecutorOp[] = []
    const triggering = { id: event.id ?? randomUUID(), ts: event.ts ?? Date.now(), ...event }
    let stepId = 'step'
    for (let request = 1; request <= maxRequests; request++) {
      const before = run.checkpointed.length
      const body = JSON.stringify({
        event: triggering,
        events: [triggering],
        steps: run.steps,
        ctx: {
          run_id: runId,
          fn_id: `fn_${functionSlug}`,
          qi_id: `qi_${randomUUID()}`,
          attempt: 0,
          max_attempts: 4,
          disable_immediate_execution: false,
          use_api: false,
          stack: { stack: run.stack, current: run.stack.length },
        },
        version: 2,
      })
      const response = await fetch(`${appUrl}/api/inngest?fnId=${encodeURIComponent(functionSlug)}&stepId=${encodeURIComponent(stepId)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-inngest-server-kind': options.sign ? 'cloud' : 'dev',
          'x-request-id': randomUUID(),
          ...(options.sign && { 'x-inngest-signature': options.sign(body) }),
        },
        body,
      })
      ops.push(...run.checkpointed.slice(before))
      const text = await response.text()
      if (response.status === 200) return { output: text ? JSON.parse(text) : null, ops, requests: request }
      if (response.status !== 206) throw new Error(`The SDK answered ${response.status}: ${text}`)
      stepId = 'step'
      for (const op of JSON.parse(text) as ExecutorOp[]) {
        ops.push(op)
        if (op.op === 'RunComplete') return { output: op.data, ops, requests: request }
        if (op.op === 'StepError' || op.op === 'StepFailed') throw new Error(`Step ${op.displayName ?? op.id} failed: ${JSON.stringify(op.error)}`)
        if (op.op === 'StepPlanned') stepId = op.id
        else memoise(run, op)
      }
    }
    throw new Error(`The run did not finish within ${maxRequests} requests.`)
  }

  await start()
  return {
    get url() {
      return `http://127.0.0.1:${port}`
    },
    get port() {
      return port
    },
    events,
    start,
    stop,
    waitForEvents,
    runFunction,
  }
}

/** What the executor remembers of a finished op, sent back on every later request. */
function memoise(run: RunState, op: ExecutorOp): void {
  if (op.op === 'RunComplete' || op.op === 'StepPlanned' || op.id in run.steps) return
  run.steps[op.id] = op.op === 'Sleep' ? null : { type: 'data', data: op.data ?? null }
  run.stack.push(op.id)
}
