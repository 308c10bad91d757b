import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DomainError } from '../errors.ts'
import { createId } from '../ids.ts'
import { processSingleton } from '../process-singleton.ts'

/** An upload written to a temporary file: where, how many bytes, their sha256 and first bytes (for the type). */
export type ReceivedFile = { path: string; bytes: number; sha256: string; head: Buffer; discard(): Promise<void> }

export class TooLargeError extends DomainError {
  constructor(maxBytes: number) {
    super('payload_too_large', `The file is larger than this newsroom accepts (${maxBytes.toLocaleString('en')} bytes, MEDIA_MAX_BYTES); nothing was stored.`)
  }
}

// Each process writes its uploads under a directory named by its pid. A process killed mid-upload
// (kill -9, the OOM killer, a deploy) cannot remove what it was writing, and that file is the
// photo as it came (GPS position, camera serial) outside the media store, where deleting the
// image never reaches it: the next process to take an upload on the machine removes the
// directories of processes that are gone. Instances sharing the machine keep their own files.
const tempRoot = () => path.join(os.tmpdir(), 'newsroom-media')
const tempDir = () => path.join(tempRoot(), `p${process.pid}`)
const swept = processSingleton('media temp sweep', () => new Set<string>())

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** Removes (once per temp root and process) the upload directories of processes no longer running. */
async function sweepDeadProcesses(): Promise<void> {
  const root = tempRoot()
  if (swept.has(root)) return
  swept.add(root)
  const entries = await readdir(root, { withFileTypes: true }).catch(() => [])
  await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && /^p\d+$/.test(entry.name) && Number(entry.name.slice(1)) !== process.pid && processGone(Number(entry.name.slice(1))))
      .map((entry) => rm(path.join(root, entry.name), { recursive: true, force: true }).catch(() => undefined)),
  )
}

/**
 * Streams `source` to a temporary file, hashing as it goes, and stops at `maxBytes` (413): the
 * bytes never sit whole in the heap, whatever their size. The caller discards the file once it
 * is stored (or refused).
 */
export async function receiveToTempFile(source: Readable | AsyncIterable<Uint8Array>, maxBytes: number): Promise<ReceivedFile> {
  await sweepDeadProcesses()
  await mkdir(tempDir(), { recursive: true })
  const file = path.join(tempDir(), createId('req'))
  const hash = createHash('sha256')
  let bytes = 0
  const headChunks: Buffer[] = []
  let headBytes = 0
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      if (bytes > maxBytes) return callback(new TooLargeError(maxBytes))
      hash.update(chunk)
      if (headBytes < 64) {
        headChunks.push(chunk.subarray(0, 64 - headBytes))
        headBytes += Math.min(chunk.length, 64 - headBytes)
      }
      callback(null, chunk)
    },
  })
  const discard = () => rm(file, { force: true })
  const writer = createWriteStream(file)
  try {
    await pipeline(source, meter, writer)
  } catch (error) {
    // The write stream opens its file asynchronously: a source that fails first (an upload
    // refused or cut off before its first byte) would have the file removed before it exists,
    // and then created. Remove it once the stream has closed.
    if (!writer.closed) await new Promise<void>((resolve) => writer.once('close', () => resolve()))
    await discard()
    throw error
  }
  return { path: file, bytes, sha256: hash.digest('hex'), head: Buffer.concat(headChunks), discard }
}
