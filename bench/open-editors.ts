/**
 * Open editors, as the portal's article page makes them (components/articles/use-edit-lease.ts),
 * run as their own process so they share no CPU budget with the bench or the load generator:
 * `tsx bench/open-editors.ts <config.json>` prints what they asked and were answered, as JSON.
 *
 * Each editor is one browser signed in to the portal (its own session cookie and keep-alive
 * connection) with one article open and unsaved edits in it, the worst case: it claimed the
 * article's edit lease with its first keystroke (POST /api/articles/{id}/lease with the portal's
 * header), renews it every `leaseHeartbeatSeconds` the same way, and polls
 * GET /api/articles/{id}/watch with the ETag it last saw as If-None-Match and `Prefer: wait=25`
 * (held by the server while unchanged, then a 304) and asks again at once, one answered at once
 * after `watchIntervalSeconds`, exactly as the page's code sends them. The editors'
 * phases are spread evenly over each interval, as the moments people opened their pages are. When the run ends each releases its lease, as
 * leaving the page does.
 */
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { leaseHeartbeatSeconds, watchHoldSeconds, watchIntervalSeconds } from '../lib/articles/lease-timing.ts'

export type OpenEditorsConfig = {
  url: string
  /** One per editor: its session cookie (`name=value`) and the article it has open. */
  editors: { cookie: string; articleId: string }[]
  /** Time to open the pages, claim the leases and see every claim once (not counted). */
  rampSeconds: number
  /** The counted time after the ramp; the editors then release their leases and the process prints. */
  steadySeconds: number
}

export type OpenEditorsResult = {
  editors: number
  steadySeconds: number
  /** Counted in the steady phase only. */
  watches: number
  unchanged: number
  renewals: number
  /** Renewals that found someone else holding the lease, and answers that were not 200. */
  lost: number
  errors: number
  watchP50Ms: number
  watchP99Ms: number
  /** This process's CPU over the whole run (it shares the machine's cores with the service). */
  cpuMs: number
}

type Answer = { status: number; body: string; etag?: string }

function editorClient(url: URL, cookieAtStart: string) {
  // A browser keeps its connection to the portal open between polls.
  // A browser opens up to six connections to a host: a held poll does not hold up the renewal.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 })
  let cookie = cookieAtStart
  const send = (method: 'GET' | 'POST', path: string, body?: string, extra: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: {
            cookie,
            // httpBatchLink's header on every tRPC request (lib/security/same-origin.ts); the watch poll's plain fetch sends none.
            ...(path.startsWith('/api/trpc/') && { 'x-newsroom-portal': '1' }),
            accept: '*/*',
            ...extra,
            ...(body !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          },
        },
        (response) => {
          let text = ''
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => (text += chunk))
          response.on('end', () => {
            // next-auth slides the session along: a browser keeps the newer cookie.
            for (const set of response.headers['set-cookie'] ?? []) {
              const pair = set.split(';', 1)[0]!
              if (pair.split('=', 1)[0] === cookie.split('=', 1)[0] && pair.length > pair.indexOf('=') + 1) cookie = pair
            }
            resolve({ status: response.statusCode ?? 0, body: text, etag: response.headers.etag })
          })
        },
      )
      request.on('error', reject)
      if (body !== undefined) request.write(body)
      request.end()
    })
  return { send, close: () => agent.destroy() }
}

/** tRPC's batch link: one call, input keyed "0". */
const mutation = (procedure: string) => `/api/trpc/${procedure}?batch=1`

export async function runOpenEditors(config: OpenEditorsConfig): Promise<OpenEditorsResult> {
  const url = new URL(config.url)
  const watchMs = watchIntervalSeconds * 1000
  const heartbeatMs = leaseHeartbeatSeconds * 1000
  const rampMs = config.rampSeconds * 1000
  const cpuAtStart = process.cpuUsage()
  const started = performance.now()
  const steadyFrom = started + rampMs
  const stopAt = steadyFrom + config.steadySeconds * 1000
  const counted = () => {
    const now = performance.now()
    return now >= steadyFrom && now < stopAt
  }
  const result = { watches: 0, unchanged: 0, renewals: 0, lost: 0, errors: 0 }
  const latencies: number[] = []
  const timers: NodeJS.Timeout[] = []

  const clients = config.editors.map((editor, index) => {
    const client = editorClient(url, editor.cookie)
    // The ETag of the last 200, sent back as If-None-Match (use-edit-lease.ts).
    let etag: string | undefined
    const fraction = index / config.editors.length
    const watch = async () => {
      const asked = performance.now()
      const answer = await client.send('GET', `/api/articles/${encodeURIComponent(editor.articleId)}/watch`, undefined, etag ? { 'if-none-match': etag, prefer: `wait=${watchHoldSeconds}` } : {})
      if (answer.status === 200) {
        JSON.parse(answer.body)
        etag = answer.etag
      }
      if (!counted()) return
      latencies.push(performance.now() - asked)
      result.watches++
      if (answer.status === 304) result.unchanged++
      else if (answer.status !== 200) result.errors++
    }
    const renew = async () => {
      const answer = await client.send('POST', `/api/articles/${encodeURIComponent(editor.articleId)}/lease`, '{}', { 'x-newsroom-portal': '1' })
      if (!counted()) return
      result.renewals++
      if (answer.status !== 200) return void result.errors++
      if (!(JSON.parse(answer.body) as { mine: boolean }).mine) result.lost++
    }
    const failed = () => {
      if (counted()) result.errors++
    }
    // The page opens (its first poll), the first keystroke claims the lease; then the intervals run.
    timers.push(
      setTimeout(() => {
        renew().catch(failed)
        // As the page: a held poll is asked again at once, one answered at once after the interval.
        const loop = async () => {
          while (performance.now() < stopAt) {
            const asked = performance.now()
            await watch().catch(failed)
            const waited = performance.now() - asked
            if (waited < watchMs) await new Promise((resolve) => timers.push(setTimeout(resolve, watchMs - waited)))
          }
        }
        void loop()
      }, fraction * watchMs),
    )
    timers.push(
      setTimeout(() => {
        void renew().catch(failed)
        timers.push(setInterval(() => void renew().catch(failed), heartbeatMs))
      }, rampMs + fraction * heartbeatMs),
    )
    return { client, editor }
  })

  await new Promise((resolve) => setTimeout(resolve, stopAt - performance.now()))
  for (const timer of timers) clearTimeout(timer)
  // Leaving the page releases the lease (a keepalive request), so the next run finds the articles free.
  await Promise.all(clients.map(({ client, editor }) => client.send('POST', mutation('articles.releaseLease'), JSON.stringify({ 0: { article_id: editor.articleId } })).catch(() => undefined)))
  for (const { client } of clients) client.close()
  latencies.sort((a, b) => a - b)
  const percentile = (share: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))]! * 10) / 10 : 0)
  const cpu = process.cpuUsage(cpuAtStart)
  return {
    editors: config.editors.length,
    steadySeconds: config.steadySeconds,
    ...result,
    watchP50Ms: percentile(0.5),
    watchP99Ms: percentile(0.99),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  }
}

if (process.argv[1]?.endsWith('open-editors.ts') && process.argv[2]) {
  const config = JSON.parse(readFileSync(process.argv[2], 'utf8')) as OpenEditorsConfig
  process.stdout.write(JSON.stringify(await runOpenEditors(config)) + '\n')
  process.exit(0)
}
