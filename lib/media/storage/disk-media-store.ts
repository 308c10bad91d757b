import { createReadStream } from 'node:fs'
import { copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createId } from '../../ids.ts'
import { assertStorageKey, type MediaStore, type StoredObject } from './media-store.ts'

/**
 * The embedded default: files under the data directory (`.data/media`, or MEDIA_DIR), so
 * `npm run dev` needs nothing new. Writes go to a temporary name and are renamed into place, so
 * a reader never sees half a file.
 */
export function diskMediaStore(root: string): MediaStore {
  const file = (key: string) => {
    assertStorageKey(key)
    return path.join(root, key)
  }
  async function place(key: string, write: (temp: string) => Promise<void>, attempt = 1): Promise<void> {
    const target = file(key)
    await mkdir(path.dirname(target), { recursive: true })
    const temp = `${target}.${createId('req')}.part`
    try {
      await write(temp)
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true })
      // The directory went between mkdir and the write: a deletion's deletePrefix removing the
      // renditions of these bytes (renditions/<tenant>/<sha256>/ is shared by every record the
      // newsroom has had of them) while one is being kept. Made again once, the write goes in.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt === 1) return place(key, write, 2)
      throw error
    }
  }
  return {
    kind: 'disk',
    putFile: (key, sourcePath) => place(key, (temp) => copyFile(sourcePath, temp)),
    putBuffer: (key, bytes) => place(key, (temp) => writeFile(temp, bytes)),
    async get(key) {
      const target = file(key)
      const info = await stat(target).catch(() => null)
      if (!info?.isFile()) return null
      return { body: createReadStream(target), bytes: info.size }
    },
    async delete(key) {
      // Not recursive: a key names one file.
      await rm(file(key), { force: true })
    },
    async deletePrefix(prefix) {
      assertStorageKey(prefix.replace(/\/$/, ''))
      const target = path.join(root, prefix)
      // A prefix is a directory of keys (`tenant/sha/`) or one key.
      await rm(target, { recursive: true, force: true })
    },
    async *list(prefix) {
      assertStorageKey(prefix.replace(/\/$/, ''))
      const base = path.join(root, prefix)
      const entries = await readdir(base, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return []
        throw error
      })
      let page: StoredObject[] = []
      for (const entry of entries) {
        // A write's temporary file (`….part`) is listed too: no record names it, so the sweep
        // removes one a killed process left, once it is older than any write in progress.
        if (!entry.isFile()) continue
        const full = path.join(entry.parentPath, entry.name)
        const info = await stat(full).catch(() => null)
        if (!info) continue
        page.push({ key: path.relative(root, full).split(path.sep).join('/'), writtenAt: info.mtime })
        if (page.length === 1000) {
          yield page
          page = []
        }
      }
      if (page.length > 0) yield page
    },
  }
}
