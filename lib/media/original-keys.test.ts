import { describe, expect, it } from 'vitest'
import { isOwnOriginalKey, legacyOriginalKey, originalKey } from './media-library.ts'

// The archive importer writes a media record's file under the storage_key the archive names: it
// takes only the record's own original's key, in the form records have now (one per record) or
// the one records stored before it keep (one per newsroom and hash).
describe('isOwnOriginalKey', () => {
  const sha = 'a'.repeat(64)
  const media = { tenantId: 'ten_ABC', sha256: sha, id: 'med_0abc' }

  it('takes the record’s own key, in either form', () => {
    expect(originalKey(media.tenantId, sha, media.id)).toBe(`originals/ten_abc/${sha}-med_0abc`)
    expect(isOwnOriginalKey(originalKey(media.tenantId, sha, media.id), media)).toBe(true)
    expect(isOwnOriginalKey(legacyOriginalKey(media.tenantId, sha), media)).toBe(true)
  })

  it('refuses another record’s, other bytes’, another newsroom’s, and anything else', () => {
    for (const key of [
      originalKey(media.tenantId, sha, 'med_0abd'),
      originalKey(media.tenantId, 'b'.repeat(64), media.id),
      legacyOriginalKey('ten_other', sha),
      originalKey('ten_other', sha, media.id),
      `renditions/ten_abc/${sha}/w640.webp`,
      `originals/ten_abc/${sha}/../x`,
    ]) expect(isOwnOriginalKey(key, media), key).toBe(false)
  })
})
