import { connect } from 'node:net'

export type RawAnswer = { status: number; headers: Record<string, string>; body: string; closed: boolean }

/**
 * Sends bytes as they are over a fresh TCP connection and reads the first HTTP response,
 * for requests fetch refuses to make: a Content-Length that lies, control characters in a
 * header. `halfClose` ends the sending side after the bytes (the client is done, or gone),
 * while still reading the answer. Rejects if no complete answer arrives within `timeoutMs`.
 */
export function rawHttp(port: number, request: Buffer | string, options: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true })
    let received = Buffer.alloc(0)
    let settled = false
    const finish = (error: Error | null, answer?: RawAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      if (error) reject(error)
      else resolve(answer!)
    }
    const timer = setTimeout(() => finish(new Error(`No complete answer within ${options.timeoutMs ?? 5_000} ms; got: ${JSON.stringify(received.toString('latin1').slice(0, 300))}`)), options.timeoutMs ?? 5_000)

    const tryParse = (closed: boolean) => {
      const headerEnd = received.indexOf('\r\n\r\n')
      if (headerEnd < 0) {
        if (closed) finish(new Error(`The connection closed without an answer: ${JSON.stringify(received.toString('latin1').slice(0, 300))}`))
        return
      }
      const [statusLine, ...lines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1])
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      const rest = received.subarray(headerEnd + 4)
      let body: Buffer | undefined
      if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length'])
        if (rest.length >= length) body = rest.subarray(0, length)
      } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        body = dechunk(rest)
      } else if (closed || status === 204 || status === 304) {
        body = rest
      }
      if (body) finish(null, { status, headers, body: body.toString('utf8'), closed })
      else if (closed) finish(new Error(`The connection closed mid-answer: ${JSON.stringify(received.toString('latin1').slice(0, 300))}`))
    }

    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      tryParse(false)
    })
    socket.on('end', () => tryParse(true))
    socket.on('error', (error) => (received.length > 0 ? tryParse(true) : finish(error)))
    socket.write(request, () => {
      if (options.halfClose) socket.end()
    })
  })
}

/** The body of a complete chunked message, or undefined while chunks are still missing. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at)
    if (lineEnd < 0) return undefined
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16)
    if (Number.isNaN(size)) return undefined
    if (size === 0) return Buffer.concat(parts)
    if (data.length < lineEnd + 2 + size + 2) return undefined
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}
