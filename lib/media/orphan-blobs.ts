import { db } from '../db/client.ts'
import { logger } from '../ops/logger.ts'
import { mediaStore } from './storage/media-storage.ts'
import type { StoredObject } from './storage/media-store.ts'

/** Blobs younger than this are left alone: an upload stores its original before its record commits. */
export const orphanGraceMs = 24 * 60 * 60 * 1000

export type OrphanSweep = { examined: number; removed: string[] }

/**
 * Removes the blobs no media record refers to: an original whose key no record has (its
 * deletion's removal failed while the store was down: deleteMedia logs those keys and answers
 * anyway), and renditions of a (newsroom, content hash) the library no longer has. Only blobs
 * written more than `graceMs` ago, so an upload in flight keeps its bytes. Runs across every
 * newsroom, as an operator's job (the daily sweep-orphan-media Inngest function): the keys
 * carry the newsroom, and a record is looked up by the key itself.
 */
export async function sweepOrphanMediaBlobs(options: { now?: Date; graceMs?: number } = {}): Promise<OrphanSweep> {
  const cutoff = (options.now ?? new Date()).getTime() - (options.graceMs ?? orphanGraceMs)
  const store = mediaStore()
  const sweep: OrphanSweep = { examined: 0, removed: [] }
  const removeUnreferenced = async (page: StoredObject[], referenced: (keys: string[]) => Promise<Set<string>>) => {
    sweep.examined += page.length
    const old = page.filter((object) => object.writtenAt.getTime() < cutoff).map((object) => object.key)
    if (old.length === 0) return
    const kept = await referenced(old)
    for (const key of old.filter((key) => !kept.has(key))) {
      await store.delete(key)
      sweep.removed.push(key)
    }
  }

  for await (const page of store.list('originals/')) {
    await removeUnreferenced(page, async (keys) => {
      const rows = await db.$queryRaw<{ storage_key: string }[]>`SELECT storage_key FROM media WHERE storage_key = ANY(${keys}::text[])`
      return new Set(rows.map((row) => row.storage_key))
    })
  }
  // renditions/<newsroom, lower-cased>/<sha256>/<variant>: kept while the newsroom has those bytes.
  for await (const page of store.list('renditions/')) {
    await removeUnreferenced(page, async (keys) => {
      const owners = keys.map((key) => key.split('/'))
      const rows = await db.$queryRaw<{ tenant: string; sha256: string }[]>`
        SELECT DISTINCT lower(m.tenant_id) AS tenant, m.sha256 FROM media m
        JOIN unnest(${owners.map((parts) => parts[1] ?? '')}::text[], ${owners.map((parts) => parts[2] ?? '')}::text[]) AS k(tenant, sha256)
          ON lower(m.tenant_id) = k.tenant AND m.sha256 = k.sha256`
      const have = new Set(rows.map((row) => `${row.tenant}/${row.sha256}`))
      return new Set(keys.filter((_, index) => have.has(`${owners[index]![1]}/${owners[index]![2]}`)))
    })
  }
  if (sweep.removed.length > 0) logger.info({ removed: sweep.removed.length, examined: sweep.examined }, 'removed media blobs no record refers to')
  return sweep
}
