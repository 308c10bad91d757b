import { describe, expect, it } from 'vitest'
import { mediaPublishRefusal } from './media-rights.ts'

describe('mediaPublishRefusal', () => {
  const rights = { embargoUntil: null, expiresAt: null }
  it('counts alt text a screen reader would read nothing of as missing', () => {
    for (const altText of [null, '', '   ', '\u200B', ' \u200B\u200C\u200D\uFEFF ', '\u00AD', '\u2060']) {
      expect(mediaPublishRefusal({ ...rights, altText }), JSON.stringify(altText)).toEqual(['alt_text_missing'])
    }
  })
  it('accepts any words, in any script', () => {
    for (const altText of ['A lighthouse in fog', 'منارة في الضباب', '霧の中の灯台', 'x']) expect(mediaPublishRefusal({ ...rights, altText })).toEqual([])
  })
})
