import { Readable } from 'node:stream'
import busboy from 'busboy'
import type { ApiRequest } from './api-request.ts'
import { BodyError, readJsonBody } from './read-json-body.ts'
import { DomainError, ValidationError } from '../errors.ts'
import { parseInput } from '../parse-input.ts'
import { createMediaFromUrlSchema, multipartFieldsSchema, type CreateMediaFromUrlInput } from '../media/media-schemas.ts'
import { receiveToTempFile, TooLargeError, type ReceivedFile } from '../media/receive-upload.ts'
import type { UploadFields } from '../media/media-library.ts'

/** What POST /v1/media received: a file streamed to disk with its fields, or a source_url to fetch. */
export type MediaUploadBody = { kind: 'file'; file: ReceivedFile; fields: UploadFields } | { kind: 'url'; input: CreateMediaFromUrlInput }

// The multipart envelope (boundaries, part headers, the text fields) around the file.
const envelopeBytes = 64 * 1024
const maxJsonBytes = 64 * 1024
const uploadIdleMs = () => Number(process.env.MEDIA_UPLOAD_IDLE_MS ?? 30_000)

/**
 * Reads POST /v1/media's body: `multipart/form-data` (one `file` part streamed straight to a
 * temporary file, never whole in the heap, and text parts for the fields) or JSON with
 * `source_url`. A declared length past the limit is refused before a byte is read (413).
 */
export async function readMediaUploadBody(request: ApiRequest, maxBytes: number): Promise<MediaUploadBody> {
  const contentType = request.headers.get('content-type') ?? ''
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase()
  if (mediaType === 'application/json') {
    const raw = await readJsonBody(request, maxJsonBytes)
    return { kind: 'url', input: parseInput(createMediaFromUrlSchema, raw, 'The request body has invalid fields; see errors.') }
  }
  if (mediaType !== 'multipart/form-data') {
    throw new BodyError('unsupported_media_type', `Send the image as multipart/form-data with a \`file\` part, or JSON with \`source_url\`${mediaType ? ` (got ${mediaType})` : ''}.`)
  }
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > maxBytes + envelopeBytes) throw new TooLargeError(maxBytes)
  if (!request.body) throw new ValidationError([{ field: 'file', message: 'Send the image in a `file` part.' }])
  return readMultipart(request.body, contentType, maxBytes)
}

function readMultipart(body: ReadableStream<Uint8Array>, contentType: string, maxBytes: number): Promise<MediaUploadBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: { files: 1, fields: 20, fieldSize: 4_096, parts: 24 } })
    } catch {
      return reject(new BodyError('unsupported_media_type', 'The multipart/form-data body has no boundary; let your HTTP client build the Content-Type.'))
    }
    const fields: Record<string, string> = {}
    let received: Promise<ReceivedFile> | null = null
    let filename: string | undefined
    let failed: unknown = null
    const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>)
    const fail = (error: unknown) => {
      clearTimeout(idle)
      if (failed) return
      failed = error
      source.unpipe(parser)
      source.destroy()
      void received?.then((file) => file.discard(), () => undefined)
      reject(error)
    }
    // A client that stops sending holds an upload slot: past this long without a byte it is let go.
    let idle: NodeJS.Timeout | undefined
    const touch = () => {
      clearTimeout(idle)
      idle = setTimeout(() => fail(new BodyError('request_aborted', 'The upload stalled: no data arrived for 30 s.')), uploadIdleMs())
    }
    touch()
    source.on('data', touch)
    source.on('close', () => clearTimeout(idle))
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || received) {
        stream.resume()
        return fail(new ValidationError([{ field: name, message: 'Send one image, in the part named `file`.' }]))
      }
      filename = info.filename
      received = receiveToTempFile(stream, maxBytes)
      received.catch(fail)
    })
    parser.on('field', (name, value) => {
      fields[name] = value
    })
    parser.on('partsLimit', () => fail(new ValidationError([{ field: 'file', message: 'Too many parts: send one `file` and at most 20 fields.' }])))
    parser.on('error', () => fail(new BodyError('malformed_json', 'The multipart/form-data body is malformed.')))
    source.on('error', () => fail(new BodyError('request_aborted', 'The request body was cut off before it ended.')))
    parser.on('close', () => {
      if (failed) return
      if (!received) return fail(new ValidationError([{ field: 'file', message: 'Send the image in a part named `file`.' }]))
      received.then(
        (file) => {
          try {
            const parsed = parseInput(multipartFieldsSchema, fields, 'The upload has invalid fields; see errors.')
            const upload: UploadFields = {
              alt_text: parsed.alt_text,
              caption: parsed.caption,
              credit: parsed.credit,
              copyright: parsed.copyright,
              source: parsed.source,
              taken_at: parsed.taken_at,
              filename,
              ...((parsed.usage_terms !== undefined || parsed.embargo_until !== undefined || parsed.expires_at !== undefined) && {
                rights: { usage_terms: parsed.usage_terms, embargo_until: parsed.embargo_until, expires_at: parsed.expires_at },
              }),
              ...(parsed.focal_x !== undefined || parsed.focal_y !== undefined ? { focal_point: { x: parsed.focal_x ?? 0.5, y: parsed.focal_y ?? 0.5 } } : {}),
            }
            resolve({ kind: 'file', file, fields: upload })
          } catch (error) {
            void file.discard()
            reject(error instanceof DomainError ? error : new ValidationError([{ field: 'file', message: 'The upload could not be read.' }]))
          }
        },
        fail,
      )
    })
    source.pipe(parser)
  })
}
