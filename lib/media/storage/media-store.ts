import type { Readable } from 'node:stream'

/**
 * Where the media library keeps bytes: the port every adapter implements (disk under the data
 * directory for the embedded default, S3 for production). Nothing outside lib/media/storage
 * knows which one runs, as nothing outside lib/events knows which event queue runs.
 *
 * Keys are relative paths of `[a-z0-9_./-]` chosen by lib/media (never by a client).
 */
export interface MediaStore {
  readonly kind: 'disk' | 's3'
  /** Stores the file at `sourcePath` (a finished temp file) under `key`, streamed, never whole in the heap. */
  putFile(key: string, sourcePath: string, contentType: string): Promise<void>
  /** Stores a small buffer (a rendition) under `key`. */
  putBuffer(key: string, bytes: Buffer, contentType: string): Promise<void>
  /** The stored bytes as a stream and their length, or null when nothing is stored under `key`. */
  get(key: string): Promise<{ body: Readable; bytes: number } | null>
  /** Removes the one object stored under `key` (exactly that key, never others it prefixes); a missing one is not an error. */
  delete(key: string): Promise<void>
  /** Removes every object whose key starts with `prefix`; missing ones are not an error. */
  deletePrefix(prefix: string): Promise<void>
  /** Every object whose key starts with `prefix` (a directory of keys, `originals/`), with when it was written, a page at a time. */
  list(prefix: string): AsyncIterable<StoredObject[]>
}

export type StoredObject = { key: string; writtenAt: Date }

const safeKey = /^[a-z0-9_][a-z0-9_./-]*$/

/** Refuses a key that could leave its root (`..`) or is not of lib/media's making. */
export function assertStorageKey(key: string): void {
  if (!safeKey.test(key) || key.split('/').some((part) => part === '..' || part === '.' || part === '')) throw new Error(`Invalid media storage key: ${key}`)
}
