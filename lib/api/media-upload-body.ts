import { Readable } from 'node:stream'
import busboy from 'busboy'
import type { ApiRequest } from './api-request.ts'
import { BodyError, readJsonBody } from './read-json-body.ts'
import { DomainError, ServiceUnavailableError, ValidationError } from '../errors.ts'
import { parseInput } from '../parse-input.ts'
import { createMediaFromUrlSchema, multipartFieldsSchema, type CreateMediaFromUrlInput } from '../media/media-schemas.ts'
import { receiveToTempFile, TooLargeError, type ReceivedFile } from '../media/receive-upload.ts'
import type { UploadFields } from '../media/media-library.ts'
import { FetchTurnTimeoutError, withFetchSlot } from '../media/fetch-gate.ts'
import { fetchSourceUrl, filenameFromUrl } from '../media/fetch-source-url.ts'
import { mediaFetchTimeoutMs, mediaMaxBytes } from '../media/media-limits.ts'
import { watchBodyPace } from './body-pace.ts'
import { outsideLargeBodySlot } from './large-body-gate.ts'

/**
 * The image a media upload brings, whichever way it came, with its fields: the file streamed to
 * disk, or the wire photo its `source_url` names. A fetch waits on another server, not on this
 * process's memory, so it gives back the request's large-body slot meanwhile (large-body-gate.ts),
 * and takes a turn of the instance's fetch gate (lib/media/fetch-gate.ts) within the fetch's own
 * time limit: a burst of slow URLs holds a bounded number of sockets. One function for POST
 * /v1/media and the portal's upload, so the two doors fetch alike.
 */
export async function receiveMediaUpload(request: ApiRequest): Promise<{ file: ReceivedFile; fields: UploadFields }> {
  return completeMediaUpload(await readMediaUploadBody(request, mediaMaxBytes()))
}

/** The file of an upload read (readMediaUploadBody): the one sent, or its source_url's, fetched as receiveMediaUpload says. */
export async function completeMediaUpload(upload: MediaUploadBody): Promise<{ file: ReceivedFile; fields: UploadFields }> {
  if (upload.kind === 'file') return upload
  const url = upload.input.source_url
  const deadline = Date.now() + mediaFetchTimeoutMs()
  const file = await outsideLargeBodySlot(() =>
    withFetchSlot(deadline, () => fetchSourceUrl(url, mediaMaxBytes(), deadline)).catch((error: unknown) => {
      if (error instanceof FetchTurnTimeoutError) throw new ServiceUnavailableError(`This instance is fetching as many images from other servers as it may, and source_url's turn did not come within ${mediaFetchTimeoutMs() / 1000} s; nothing was stored. Retry shortly.`)
      throw error
    }),
  )
  return { file, fields: { ...upload.input, filename: upload.input.filename ?? filenameFromUrl(url) } }
}

/**
 * What an Idempotency-Key on an upload is bound to: the file's content and its fields, or the
 * JSON that names a source_url (known before the fetch, so a retry fetches nothing).
 */
export function uploadIdentity(upload: MediaUploadBody): unknown {
  return upload.kind === 'file' ? { sha256: upload.file.sha256, bytes: upload.file.bytes, fields: upload.fields } : upload.input
}

/** What POST /v1/media received: a file streamed to disk with its fields, or a source_url to fetch. */
export type MediaUploadBody = { kind: 'file'; file: ReceivedFile; fields: UploadFields } | { kind: 'url'; input: CreateMediaFromUrlInput }

// The multipart envelope (boundaries, part headers, the text fields) around the file.
const envelopeBytes = 64 * 1024
const maxJsonBytes = 64 * 1024
// busboy counts bytes, the schema characters: a UTF-8 character is at most 4 bytes, so the
// longest text field the schema allows (2,000 characters) always fits whole. A part past this
// is refused (422 naming it), never cut.
const maxFieldChars = 2_000
const fieldSizeBytes = maxFieldChars * 4
const maxFields = 20
// C0 controls and DEL: no filename has them; they are stripped, never stored or echoed.
const controlCharacters = /[\u0000-\u001f\u007f]/g

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
  // Read under the pace rule (readMultipart): the server's own bound no longer applies (api-request.ts).
  request.bodyPaced?.()
  return readMultipart(request.body, contentType, maxBytes)
}

function readMultipart(body: ReadableStream<Uint8Array>, contentType: string, maxBytes: number): Promise<MediaUploadBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      // Browsers send a part's filename as raw UTF-8 (not RFC 5987 filename*=): read it so.
      // files: 2 so that a second `file` part reaches the 'file' handler and is refused there.
      parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { files: 2, fields: maxFields, fieldSize: fieldSizeBytes, parts: maxFields + 2 },
      })
    } catch {
      return reject(new BodyError('unsupported_media_type', 'The multipart/form-data body has no boundary; let your HTTP client build the Content-Type.'))
    }
    // No prototype: a part named __proto__ is just an unknown field (refused by the schema).
    const fields: Record<string, string> = Object.create(null)
    let received: Promise<ReceivedFile> | null = null
    let filename: string | undefined
    let fileStream: Readable | undefined
    let failed: unknown = null
    const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>)
    const fail = (error: unknown) => {
      pace.stop()
      if (failed) return
      failed = error
      source.unpipe(parser)
      source.destroy()
      // The file part being written stops here (its temp file is removed as the write fails);
      // one already written is removed below. No failure leaves a file in the temp directory.
      // (with an error: destroyed without one, the pipeline writing it would wait forever).
      if (fileStream && !fileStream.destroyed) fileStream.on('error', () => undefined).destroy(new Error('upload refused'))
      void received?.then((file) => file.discard(), () => undefined)
      reject(error)
    }
    // A client that stops sending, or drips a byte now and then, holds an upload slot: it is let go (body-pace.ts).
    const pace = watchBodyPace((reason) => fail(new BodyError('request_aborted', `The upload ${reason}.`)))
    source.on('data', (chunk: Uint8Array) => pace.received(chunk.length))
    source.on('close', () => pace.stop())
    parser.on('file', (name, stream, info) => {
      // After a refusal nothing more is received (a temp file made now would be left behind).
      if (failed) return void stream.resume()
      if (received) {
        stream.resume()
        return fail(new ValidationError([{ field: 'file', message: 'Send one file per upload: this request has more than one file part.' }]))
      }
      if (name !== 'file') {
        stream.resume()
        return fail(new ValidationError([{ field: name, message: 'Send one image, in the part named `file`.' }]))
      }
      filename = info.filename?.replace(controlCharacters, '')
      fileStream = stream
      received = receiveToTempFile(stream, maxBytes)
      received.catch(fail)
    })
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) {
        return fail(new ValidationError([{ field: name, message: `${name} is longer than any field accepts (at most ${maxFieldChars.toLocaleString('en-US')} characters); nothing was stored.` }]))
      }
      if (Object.hasOwn(fields, name)) return fail(new ValidationError([{ field: name, message: `${name} was sent more than once; send each field once.` }]))
      fields[name] = value
    })
    const tooMany = () => fail(new ValidationError([{ field: 'file', message: `Too many parts: send one \`file\` and at most ${maxFields} fields.` }]))
    parser.on('partsLimit', tooMany)
    parser.on('fieldsLimit', tooMany)
    parser.on('filesLimit', () => fail(new ValidationError([{ field: 'file', message: 'Send one file per upload: this request has more than one file part.' }])))
    // busboy's own words are fixed strings, not input: naming a bad part header (a control
    // character in a filename is one, refused by busboy before we see the name) helps the sender.
    parser.on('error', (error: Error) =>
      fail(
        new BodyError(
          'malformed_multipart',
          /part header/i.test(error.message)
            ? 'The multipart/form-data body is malformed: a part\'s headers could not be read (a control character in a filename, or a header line without a colon). Let your HTTP client build the form.'
            : 'The multipart/form-data body is malformed: a part could not be read. Let your HTTP client build the form.',
        ),
      ),
    )
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
