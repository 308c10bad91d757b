/**
 * The load generator, run as its own process so it does not share a CPU budget with the
 * service's event loop: `tsx bench/load-worker.ts <scenario.json>` prints autocannon's result.
 * A scenario with `paths` sends each request to the next path in turn (each article is moved once).
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'

type Scenario = {
  url: string
  method: 'GET' | 'POST' | 'PATCH'
  path?: string
  paths?: string[]
  body?: string
  headers?: Record<string, string>
  token: string
  connections: number
  duration?: number
  amount?: number
  /** The status every answer should have, when it is not a 2xx (a conditional GET's 304). */
  expectedStatus?: number
}

const scenario = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario
let next = 0

// The load generator shares the machine too: its CPU during the run goes with its figures.
const cpuAtStart = process.cpuUsage()
// A run of a fixed number of requests ends at autocannon's next one-second tick after its last
// answer, and its average counts that last partial second as a whole one: its rate is taken
// from the time to its last answer instead (a run of 2,500 writes at 400 req/s read up to 15 % low).
const startedAt = performance.now()
let lastAnswerAt = startedAt
const result = await autocannon({
  url: scenario.url,
  connections: scenario.connections,
  ...(scenario.amount ? { amount: scenario.amount } : { duration: scenario.duration ?? 10 }),
  requests: [
    {
      method: scenario.method,
      path: scenario.path ?? scenario.paths?.[0] ?? '/',
      headers: { authorization: `Bearer ${scenario.token}`, 'content-type': 'application/json', ...scenario.headers },
      ...(scenario.body && { body: scenario.body }),
      ...(scenario.amount && { onResponse: () => void (lastAnswerAt = performance.now()) }),
      ...(scenario.paths && {
        setupRequest: (request: Record<string, unknown>) => ({ ...request, path: scenario.paths![next++ % scenario.paths!.length] }),
      }),
    } as autocannon.Request,
  ],
})

function unexpectedAnswers(status: number): number {
  const stats = (result as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats
  const answered = Object.values(stats).reduce((sum, { count }) => sum + count, 0)
  return answered - (stats[String(status)]?.count ?? 0)
}

process.stdout.write(
  JSON.stringify({
    requests: result.requests.total,
    rps: scenario.amount ? result.requests.total / ((lastAnswerAt - startedAt) / 1000) : result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + (scenario.expectedStatus ? unexpectedAnswers(scenario.expectedStatus) : result.non2xx),
    non2xx: result.non2xx,
    duration: result.duration,
    cpuMs: (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpuAtStart)),
  }),
)
