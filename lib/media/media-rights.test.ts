import { describe, expect, it } from 'vitest'
import { mediaPublishRefusal } from './media-rights.ts'

describe('mediaPublishRefusal', () => {
  const rights = { embargoUntil: null, expiresAt: null }
  it('counts alt text a screen reader would read nothing of as missing', () => {
    for (const altText of [null, '', '   ', '\u200B', ' \u200B\u200C\u200D\uFEFF ', '\u00AD', '\u2060']) {
      expect(mediaPublishRefusal({ ...rights, altText }), JSON.stringify(altText)).toEqual(['alt_text_missing'])
    }
  })
  it('counts the blank fillers of other scripts, joiners, variation selectors and control characters as missing too (no fixed list of them is whole)', () => {
    // Hangul fillers and the Braille blank draw nothing; the rest are default-ignorable or controls.
    for (const altText of ['\u3164', '\u115F\u1160', '\uFFA0', '\u2800', '\u034F', '\uFE0F', '\u{E0020}', '\u2061\u206A', '\u0001\u0002', '\u180B']) {
      expect(mediaPublishRefusal({ ...rights, altText }), JSON.stringify(altText)).toEqual(['alt_text_missing'])
    }
  })
  it('accepts any words, in any script', () => {
    for (const altText of ['A lighthouse in fog', 'منارة في الضباب', '霧の中の灯台', 'x', '한국 등대', '⠓⠑⠇⠇⠕', '👩‍🚒 at a fire', 'नमस्ते']) expect(mediaPublishRefusal({ ...rights, altText })).toEqual([])
  })
})
