import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonBytes } from './json-bytes.ts'
import { isoTimestamp } from './iso-timestamp.ts'
import { slugify } from './articles/article-address.ts'
import { RenderedJson, UnrenderedObject } from './rendered-json.ts'

const oddChars = ['\ud800', '\udfff', '\ud83d\ude00', '\u2028', '\u2029', '\u0000', '\u001f', '\u007f', '"', '\\', '\n', '\r', '\t', 'é', 'ß', 'ﬁ', '\ufeff', '\ufffd', 'a', ' ', '<', '/']
const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.array(fc.constantFrom(...oddChars), { maxLength: 150 }).map((parts) => parts.join('')),
  fc.tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...oddChars), fc.nat(300)).map(([a, c, n]) => 'x'.repeat(n) + a + c + 'y'.repeat(n)),
)

describe('break56: jsonBytes against JSON.stringify', () => {
  it('plain records with odd strings', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: oddString, headline: oddString, body: oddString, tags: fc.array(oddString, { maxLength: 3 }) }), { maxLength: 5 }), oddString, (items, next) => {
        const page = { items, next }
        expect(jsonBytes(page).toString('latin1')).toBe(Buffer.from(JSON.stringify(page)).toString('latin1'))
      }),
      { numRuns: 3000 },
    )
  })
  it('unrendered objects with odd strings', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: oddString, headline: oddString, body: oddString, n: fc.oneof(fc.double(), fc.constant(-0)), tags: fc.array(oddString, { maxLength: 3 }) }), { maxLength: 5 }), (items) => {
        const expected = Buffer.from(JSON.stringify({ items }))
        const actual = jsonBytes({ items: items.map((item) => new RenderedJson(new UnrenderedObject(item))) })
        expect(actual.toString('latin1')).toBe(expected.toString('latin1'))
      }),
      { numRuns: 2000 },
    )
  })
  it('a very long body with one lone surrogate at the end', () => {
    const body = 'a'.repeat(3_000_000) + '\ud800'
    const page = { items: [{ body }] }
    expect(jsonBytes(page).equals(Buffer.from(JSON.stringify(page)))).toBe(true)
  })
})

describe('break56: isoTimestamp against toISOString', () => {
  it('odd moments', () => {
    const moments = [-1, 0, -0, 1, 999, -62_135_596_800_000, 253_402_300_799_999, 253_402_300_800_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, -2_203_891_200_000, 8.64e15, -8.64e15, 1.5, 1e12 + 0.999]
    for (const ms of moments) expect(isoTimestamp(new Date(ms)), String(ms)).toBe(new Date(ms).toISOString())
    fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => isoTimestamp(new Date(ms)) === new Date(ms).toISOString()), { numRuns: 20000 })
  })
})

function oldSlugify(text: string): string {
  const slug = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80).replace(/-+$/, '')
  return slug || 'article'
}

describe('break56: slugify against the old NFKD form', () => {
  it('odd headlines', () => {
    fc.assert(fc.property(oddString, (text) => slugify(text) === oldSlugify(text)), { numRuns: 20000 })
    for (const text of ['İstanbul', 'K', 'ﬁ ﬂ', 'Ⅻ', 'ǅ', 'Å', '\u212a', 'ſ']) expect(slugify(text)).toBe(oldSlugify(text))
  })
})
