import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ReceivedRequest = { headers: IncomingHttpHeaders; body: string; at: number }
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string }

/**
 * A webhook receiver on 127.0.0.1 that records every request and answers from a queue
 * (then with `fallback`). `onRequest` runs while a request is held: the way to change
 * things "between attempts" when the schedule's sleeps are mocked.
 */
export async function startWebhookReceiver(fallback: ReceiverAnswer = { status: 200 }) {
  const requests: ReceivedRequest[] = []
  const answers: ReceiverAnswer[] = []
  const state: { onRequest?: (request: ReceivedRequest, count: number) => Promise<void> | void } = {}
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
      requests.push(request)
      await state.onRequest?.(request, requests.length)
      const answer = answers.shift() ?? fallback
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    /** Answers for the next requests, in order. */
    answer(...next: ReceiverAnswer[]) {
      answers.push(...next)
    },
    set onRequest(handler: typeof state.onRequest) {
      state.onRequest = handler
    },
    reset() {
      requests.length = 0
      answers.length = 0
      state.onRequest = undefined
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

/** Plain string headers, as the standardwebhooks package's verify() takes them. */
export function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]))
}
