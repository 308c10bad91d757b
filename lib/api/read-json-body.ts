import type { ApiRequest } from './api-request.ts'
import { DomainError } from '../errors.ts'
import { jsonTextNestsDeeperThan, nestingTooDeep } from '../input-shape.ts'
import { watchBodyPace } from './body-pace.ts'

export class BodyError extends DomainError {}

/**
 * Reads a JSON body: refuses other media types (415), bodies over `maxBytes` before reading
 * them whole (413), text that is not JSON (400), and JSON nested deeper than
 * `maxInputNestingDepth` (422 nesting_too_deep), found by scanning the bytes before they are
 * parsed, so nothing after (the idempotency fingerprint, validation) walks such a body.
 * An empty body (with or without a Content-Type) reads as `{}`.
 */
export async function readJsonBody(request: ApiRequest, maxBytes: number): Promise<unknown> {
  const declaredLength = Number(request.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes) throw tooLarge(maxBytes)
  // Read straight off the connection where the request allows it (ApiRequest's bodyBytes), else through the web stream.
  const direct = request.bodyBytes !== undefined
  if (declaredLength === 0 || (direct ? request.method === 'GET' || request.method === 'HEAD' : request.body === null)) return {}

  const contentType = request.headers.get('content-type') ?? ''
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase()
  const isJson = mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
  const notJson = () => new BodyError('unsupported_media_type', `Send the body as JSON with Content-Type: application/json${mediaType ? ` (got ${mediaType})` : ''}.`)
  // `curl -X POST` with no body sends neither a length nor a type: that is "no body", not a
  // wrong type. A request with no type is judged by what it carries once read.
  if (!isJson && mediaType !== '') throw notJson()

  const bytes = direct ? await readDirect(request, maxBytes) : await readStream(request.body!, maxBytes)
  const text = bytes.toString('utf8')
  if (text.trim() === '') return {}
  if (!isJson) throw notJson()
  if (jsonTextNestsDeeperThan(bytes)) throw nestingTooDeep()
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new BodyError('malformed_json', `The body is not valid JSON: ${(error as Error).message}.`)
  }
}

// The client went away mid-body: nobody waits for this answer, and it is no fault of ours.
const aborted = () => new BodyError('request_aborted', 'The request body was cut off before it ended.')
// A client that stops sending, or sends a byte now and then, holds its large-body slot (a bulk
// import): it is let go as an upload is (body-pace.ts).
const tooSlow = (reason: string) => new BodyError('request_aborted', `The body ${reason}.`)

async function readDirect(request: ApiRequest, maxBytes: number): Promise<Buffer> {
  const bytes = await request.bodyBytes!(maxBytes, (giveUp) => watchBodyPace((reason) => giveUp(tooSlow(reason)))).catch((error: unknown) => {
    throw error instanceof BodyError ? error : aborted()
  })
  if (bytes === 'too-large') throw tooLarge(maxBytes)
  return bytes ?? Buffer.alloc(0)
}

async function readStream(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let received = 0
  let slow: ((error: BodyError) => void) | undefined
  const gaveUp = new Promise<never>((_, reject) => (slow = reject))
  gaveUp.catch(() => undefined)
  const pace = watchBodyPace((reason) => slow!(tooSlow(reason)))
  try {
    for (;;) {
      const { done, value } = await Promise.race([
        reader.read().catch(() => {
          throw aborted()
        }),
        gaveUp,
      ]).catch(async (error: unknown) => {
        await reader.cancel().catch(() => undefined)
        throw error
      })
      if (done) break
      pace.received(value.byteLength)
      received += value.byteLength
      if (received > maxBytes) {
        await reader.cancel().catch(() => undefined)
        throw tooLarge(maxBytes)
      }
      chunks.push(value)
    }
  } finally {
    pace.stop()
  }
  return Buffer.concat(chunks)
}

function tooLarge(maxBytes: number) {
  return new BodyError('payload_too_large', `The body is larger than this endpoint accepts (${maxBytes.toLocaleString('en')} bytes).`)
}
