import { connect } from 'node:net'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { withLargeBodySlot } from '../../lib/api/large-body-gate.ts'
import { createHttpServer } from '../../lib/server/http-server.ts'
import { deferred } from '../support/deferred.ts'

// break70: an operator who means "no limit" sets a time limit to weeks, as body-pace.ts already
// allows for MEDIA_UPLOAD_IDLE_MS (its timers wake early and look again). Node's setTimeout fires
// after 1 ms for any delay past 2^31-1 ms (~24.8 days), so the two bounds added with the
// large-body line, which hand the setting to setTimeout as it is, turned into "at once":
// - the line's wait (MEDIA_UPLOAD_IDLE_MS): the third upload of a Media page drop is refused
//   503 'turn did not come within 3,000,000 s' a millisecond after it arrived;
// - REQUEST_TIMEOUT_MS: every body not read under the pace rule that has not fully arrived a
//   millisecond after its headers is answered 400 request_aborted.
const weeks = String(35 * 24 * 60 * 60 * 1000)

let server: Server | undefined
afterEach(async () => {
  vi.unstubAllEnvs()
  await new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve()))
  server = undefined
})

describe('a time setting of weeks (meant as "no limit")', () => {
  it('MEDIA_UPLOAD_IDLE_MS: a request waiting its turn in the large-body line is not refused at once', async () => {
    vi.stubEnv('LARGE_BODY_CONCURRENCY', '1')
    vi.stubEnv('MEDIA_UPLOAD_IDLE_MS', weeks)
    const first = deferred()
    const running = withLargeBodySlot(() => first.promise.then(() => 'first'), undefined, 'member:a')
    const waiting = withLargeBodySlot(async () => 'second', undefined, 'member:b')
    const outcome = await Promise.race([waiting.then(() => 'served', (error: Error) => `refused: ${error.message}`), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200))])
    first.resolve()
    await running
    await waiting.catch(() => undefined)
    expect(outcome).toBe('still waiting')
  })

  it('REQUEST_TIMEOUT_MS: a body arriving in two parts 100 ms apart is answered, not cut', async () => {
    vi.stubEnv('REQUEST_TIMEOUT_MS', weeks)
    server = createHttpServer((req, res) => {
      let length = 0
      req.on('data', (chunk: Buffer) => (length += chunk.length))
      req.on('end', () => res.end(`got ${length}`))
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (part: string) => (text += part))
      socket.on('close', () => resolve(text))
      socket.on('error', () => undefined)
      socket.write('POST /api/settings HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\nConnection: close\r\n\r\n12345')
      setTimeout(() => socket.write('67890'), 100)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 200/)
    expect(answer).toMatch(/got 10$/)
  })
})
