/**
 * The machine's ceiling for a cached read (issue 50): a bare node:http server that answers every
 * request with the bytes the service gave for one `GET /v1/articles/{id}` at bench start: the
 * same status, body and headers (the headers node:http writes itself, Date, Connection and
 * Keep-Alive, are left to it, as they are in the service). No authentication, no rate limit,
 * no routing: what serving those bytes over HTTP costs on this machine, and nothing else.
 *
 *   tsx bench/ceiling-server.ts <port> <answer.json>
 *
 * answer.json: { status, headers: [name, value][], body: base64 } (captureAnswer below writes it).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'

export type CapturedAnswer = { status: number; headers: [string, string][]; body: string }

// Written by node:http itself on every response (the service's too): not copied.
const writtenByNode = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** Asks the service once and writes what it answered (status, headers, body) to `file`. */
export async function captureAnswer(url: string, token: string, file: string): Promise<{ bytes: number; headers: number }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } })
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`ceiling: the service answered ${response.status} to ${url}`)
  const headers = [...response.headers].filter(([name]) => !writtenByNode.has(name))
  writeFileSync(file, JSON.stringify({ status: response.status, headers, body: body.toString('base64') } satisfies CapturedAnswer))
  return { bytes: body.length, headers: headers.length }
}

if (process.argv[1]?.endsWith('ceiling-server.ts')) {
  const [port, file] = [Number(process.argv[2]), process.argv[3]!]
  const answer = JSON.parse(readFileSync(file, 'utf8')) as CapturedAnswer
  const body = Buffer.from(answer.body, 'base64')
  // A flat [name, value, name, value …] list: node:http writes it without building an object.
  const headers = answer.headers.flat()
  // CEILING_BUSY_US: spin this long before each answer, to see what the same writes cost a server
  // as slow as the service (bench/profile-ceiling.ts): the kernel's cost of a write depends on
  // whether the reader is already awake.
  const busyMs = Number(process.env.CEILING_BUSY_US ?? 0) / 1000
  createServer((request, response) => {
    // The request's body (none for a GET) is drained so the connection stays usable.
    request.resume()
    if (busyMs > 0) for (const until = performance.now() + busyMs; performance.now() < until; );
    response.writeHead(answer.status, headers)
    response.end(body)
  }).listen(port, '127.0.0.1')
  // A clean exit, so that a --cpu-prof run writes its profile (bench/profile-ceiling.ts).
  process.on('SIGTERM', () => process.exit(0))
}
