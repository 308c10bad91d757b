/**
 * A text body the production server can send as is. A cached answer passes the same object on
 * every hit, so its UTF-8 bytes and gzip are made once, not once per request (a 50-article
 * list is ~200 KB: encoding and compressing it again cost more than the rest of the request).
 */
export type TextPayload = { body: string; bytes?: Buffer; gzipped?: Buffer }

/**
 * A payload made from its UTF-8 bytes (lib/json-bytes.ts): the text is decoded only when
 * something reads `body` (a test, an idempotent replay), never on the way to the socket.
 */
export function bytesPayload(bytes: Buffer): TextPayload & { bytes: Buffer } {
  let text: string | undefined
  return {
    bytes,
    get body() {
      return (text ??= bytes.toString('utf8'))
    },
  }
}

/** A payload's UTF-8 bytes, encoded once and kept on it. */
export function payloadBytes(payload: TextPayload): Buffer {
  return (payload.bytes ??= utf8Bytes(payload.body))
}

/**
 * A text's UTF-8 bytes, written into an uninitialised buffer of their exact length. Buffer.from
 * (text) on this Node (20) costs several times more for a large text (200 KB: 0.3-1.3 ms against
 * 0.1-0.16 ms, measured in the service and alone); most of its time is in page faults.
 */
export function utf8Bytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(text))
  bytes.write(text)
  return bytes
}

// Carried on the Response itself under a registered symbol: the server that sends it
// (lib/server, bundled on its own) and the route that made it (Next's bundle) share no module,
// only the object. The payload lives exactly as long as its response.
const payloadKey = Symbol.for('newsroom.text-payload')
const plainHeadersKey = Symbol.for('newsroom.plain-headers')
type WithPlainHeaders = Response & { [plainHeadersKey]?: Record<string, string> }

function isPlainRecord(headers: HeadersInit | undefined): headers is Record<string, string> {
  return headers !== undefined && !Array.isArray(headers) && !(headers instanceof Headers)
}

/**
 * A Response whose body is a text held as is. Made with no body stream: a web Response made
 * from a string builds a ReadableStream around it at once (a twentieth of a cached GET's CPU,
 * with its garbage), though the production server never reads it (it sends the payload). Whoever
 * does read the body (tests, Next in development) gets the same text through every reader.
 */
class TextResponse extends Response {
  readonly [payloadKey]: TextPayload
  // The headers as given, until something reads `headers`: most answers are sent without that,
  // and a Headers object (validated, lower-cased, sorted when iterated) for every answer, then
  // copied out for Node, cost more than the rest of sending a cached GET.
  [plainHeadersKey]: Record<string, string> | undefined
  #headers: Headers | undefined

  constructor(payload: TextPayload, init: ResponseInit) {
    const { headers, ...rest } = init
    const plain = isPlainRecord(headers)
    super(null, plain ? rest : init)
    this[payloadKey] = payload
    this[plainHeadersKey] = plain ? lowerCased(headers) : undefined
  }

  override get headers(): Headers {
    const plain = this[plainHeadersKey]
    if (plain) {
      this.#headers = new Headers(plain)
      this[plainHeadersKey] = undefined
    }
    return this.#headers ?? super.headers
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Response(this[payloadKey].body).body!
  }

  override async text(): Promise<string> {
    return this[payloadKey].body
  }

  override async json(): Promise<unknown> {
    return JSON.parse(this[payloadKey].body)
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new Response(this[payloadKey].body).arrayBuffer()
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer())
  }

  override async blob(): Promise<Blob> {
    return new Blob([this[payloadKey].body], { type: this.headers.get('content-type') ?? '' })
  }

  override clone(): Response {
    return new TextResponse(this[payloadKey], { status: this.status, statusText: this.statusText, headers: this.headers })
  }
}

// Names are kept lower-cased, as Headers and HTTP/2 have them, so setting and finding one is a
// property access rather than a case-insensitive scan of every name.
function lowerCased(headers: Record<string, string>): Record<string, string> {
  const record: Record<string, string> = {}
  for (const name in headers) record[lowerName(name)] = headers[name]!
  return record
}

// The API's header names are a few dozen constants ('Content-Type', 'X-RateLimit-Remaining'…):
// each lower-cased once. toLowerCase made a new string for each of a cached GET's ten or so
// mixed-case names, which V8 then hashed and looked up again to use it as a property name.
const lowerNames = new Map<string, string>()
function lowerName(name: string): string {
  let lower = lowerNames.get(name)
  if (lower === undefined) {
    lower = name.toLowerCase()
    if (lowerNames.size < 256) lowerNames.set(name, lower)
  }
  return lower
}

/**
 * A Response with a text body whose text the production server can send as is, instead of
 * reading it back through the Web stream (measured: 85 µs against 28 µs for a 4 KB article,
 * a tenth of a GET's cost). Anything else that reads the body still gets the same text.
 */
export function textResponse(text: string | TextPayload, init: ResponseInit): Response {
  return new TextResponse(typeof text === 'string' ? { body: text } : text, init)
}

/** The text a textResponse was made with; undefined for any other response. */
export function knownText(response: Response): string | undefined {
  return knownPayload(response)?.body
}

/** The payload a textResponse was made with, for the server to send (and memoise its bytes on). */
export function knownPayload(response: Response): TextPayload | undefined {
  return (response as Response & { [payloadKey]?: TextPayload })[payloadKey]
}

/** Sets headers on a response: on a text answer's own record while nobody has read its Headers. */
export function setResponseHeaders(response: Response, headers: Record<string, string>): void {
  const plain = (response as WithPlainHeaders)[plainHeadersKey]
  if (!plain) {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
    return
  }
  for (const name in headers) plain[lowerName(name)] = headers[name]!
}

/** A response header by name, in any case, without building a text answer's Headers. */
export function responseHeader(response: Response, name: string): string | null {
  const plain = (response as WithPlainHeaders)[plainHeadersKey]
  if (!plain) return response.headers.get(name)
  return plain[lowerName(name)] ?? null
}

/** A text answer's headers (names lower-cased) while nobody has read its Headers; undefined otherwise. Not to be changed. */
export function plainResponseHeaders(response: Response): Readonly<Record<string, string>> | undefined {
  return (response as WithPlainHeaders)[plainHeadersKey]
}

/** Every header of a response, names lower-cased, Set-Cookie as its list of values. */
export function responseHeaderEntries(response: Response): [string, string | string[]][] {
  const plain = (response as WithPlainHeaders)[plainHeadersKey]
  if (plain) return Object.entries(plain)
  const entries: [string, string | string[]][] = []
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') entries.push([name, value])
  })
  const setCookies = response.headers.getSetCookie()
  if (setCookies.length > 0) entries.push(['set-cookie', setCookies])
  return entries
}
