import { describe, expect, it } from 'vitest'
import { slugify, slugPattern } from './article-address.ts'

// slugify as it was before ASCII headlines skipped normalisation: every headline's slug (and so
// an unpublished article's address in the API's records) must stay what it was.
const normalisedSlug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '') || 'article'

describe('slugify', () => {
  it('gives the slug of the normalised headline, ASCII or not', () => {
    const headlines = [
      'Council approves riverside plan after vote',
      '  --Hello__World--  ',
      'Émile’s café — naïve résumé',
      'ﬁnancial ﬂows: Ⅻ reasons',
      '新聞 only',
      '',
      '---',
      `${'a '.repeat(60)}`,
      `${'A'.repeat(79)} b`,
      `${'word-'.repeat(30)}end`,
      'Tab\tand\nnewline\u0000control\u007f',
    ]
    for (const headline of headlines) expect(slugify(headline)).toBe(normalisedSlug(headline))
  })

  it('random headlines: the same slugs, each one a valid slug', () => {
    const alphabet = ['a', 'Z', '0', ' ', '-', '_', '.', "'", 'é', 'É', 'ß', 'ﬁ', '—', '’', '新', '\u0301', '\t']
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 500; round++) {
      const ascii = round % 2 === 0
      const pool = ascii ? alphabet.filter((character) => character.charCodeAt(0) < 0x80) : alphabet
      const headline = Array.from({ length: Math.floor(next() * 120) }, () => pool[Math.floor(next() * pool.length)]).join('')
      const slug = slugify(headline)
      expect(slug).toBe(normalisedSlug(headline))
      expect(slug === 'article' || slugPattern.test(slug)).toBe(true)
    }
  })
})

describe('slugify of ASCII headlines (one pass, issue 50)', () => {
  it.each(['', '---', 'Hello, World!', '  Mayor: "No new taxes" -- again?  ', 'A'.repeat(79) + ' b', 'a'.repeat(80) + '-b', 'x'.repeat(81), `${'word '.repeat(16)}end`, '2026: 10 things', 'ABC\tdef\nGHI'])('%j as the regular expressions make it', (text) => {
    expect(slugify(text)).toBe(normalisedSlug(text))
  })

  it('matches the regular expressions on 20,000 random ASCII texts', () => {
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const alphabet = 'abcXYZ019 -_.,:;!?"\'()/\t'
    for (let round = 0; round < 20_000; round++) {
      const length = Math.floor(next() * 120)
      let text = ''
      for (let index = 0; index < length; index++) text += alphabet[Math.floor(next() * alphabet.length)]
      expect(slugify(text), JSON.stringify(text)).toBe(normalisedSlug(text))
    }
  })
})
