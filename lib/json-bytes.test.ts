import { describe, expect, it } from 'vitest'
import { jsonBytes } from './json-bytes.ts'
import { RenderedJson, UnrenderedObject } from './rendered-json.ts'

const record = (body: string | null) => ({ article_id: 'art_1', headline: 'Riverside’s plan', lede: null, body, tags: ['a', 'b"c'], status: 'published', published_at: new Date(0).toISOString(), previous_urls: [], version: 3 })
const unrendered = (value: Record<string, unknown>) => new RenderedJson(new UnrenderedObject(value))

describe('a value as JSON bytes', () => {
  const values: [string, unknown][] = [
    ['a page', { items: [{ article_id: 'art_1', body: '<p>The council’s plan — “riverside”</p>', tags: ['a', 'b'] }, { article_id: 'art_2', body: null }], total: 2, next_cursor: null }],
    ['an empty page', { items: [], total: 0 }],
    ['an empty object', {}],
    ['members JSON.stringify leaves out', { a: undefined, b: () => 1, c: Symbol('x'), d: 1 }],
    ['only members left out', { a: undefined }],
    ['array elements JSON.stringify writes as null', { items: [undefined, () => 1, 1, null] }],
    ['dates, in and out of arrays', { at: new Date(Date.UTC(2026, 10, 26)), items: [new Date(0)] }],
    ['an object with toJSON', { toJSON: () => ({ replaced: true }) }],
    ['a member with toJSON', { item: { toJSON: () => 'mine' } }],
    ['nested arrays', { items: [[1, [2]], { deep: [3] }] }],
    ['keys that need escaping', { 'quote"and\\slash': 1, 'line\nbreak': [2], 'emoji 📰': '新聞' }],
    ['a lone surrogate', { items: ['a\ud800b'] }],
    ['an array', [1, { a: 2 }]],
    ['a string', 'text'],
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['a page of rendered items', { items: [new RenderedJson(Buffer.from('{"article_id":"art_1","headline":"Riverside’s plan"}')), { plain: true }, new RenderedJson(Buffer.from('[1,2]'))], total: 3 }],
    ['rendered items with members after them', { items: [new RenderedJson(Buffer.from('{"article_id":"art_1"}'), { match: { rank: 0.5, snippet: '<mark>x</mark>' }, skipped: undefined }), new RenderedJson(Buffer.from('{}'), { match: null })] }],
    ['a rendered value alone', new RenderedJson(Buffer.from('{"a":[1,"b"]}'))],
    ['rendered items as text and as bytes', { items: [new RenderedJson('{"article_id":"art_1","headline":"Riverside’s plan — 新聞"}'), new RenderedJson(Buffer.from('{"article_id":"art_2"}')), new RenderedJson('[1,2]')], total: 3 }],
    ['rendered text with members after it', { items: [new RenderedJson('{"article_id":"art_1","body":"“x”"}', { match: { rank: 0.5 } }), new RenderedJson('{}', { match: null })] }],
    ['a large page', { items: Array.from({ length: 50 }, (_, index) => ({ index, body: `<p>${'Riverside’s plan — approved. '.repeat(150)}</p>` })), total: 50 }],
    ['a member whose toJSON gives undefined', { a: { toJSON: () => undefined }, b: 1 }],
    ['records rendered as they are written', { items: [unrendered(record('<p class="lede">Riverside’s “plan”</p>\n\t\\ \u0001\u001f')), unrendered(record(`${'<p>The committee met. </p>'.repeat(200)}`)), unrendered(record(null))], total: 3 }],
    ['a record with surrogates', { items: [unrendered(record('emoji 📰 and a lone \ud800 and \udc00 high')), unrendered(record('📰'))] }],
    ['a record with members after it', { items: [new RenderedJson(new UnrenderedObject(record('x')), { match: { rank: 0.5, snippet: '<mark>"x"</mark>' }, skipped: undefined }), new RenderedJson(new UnrenderedObject({}), { match: null })] }],
    ['an unrendered record with every kind of member', { items: [unrendered({ s: 'a', n: 1.5, z: -0, nan: Number.NaN, t: true, f: null, u: undefined, fn: () => 1, d: new Date(0), arr: ['a', 1, null, undefined, () => 1, ['x'], { y: '"' }], o: { k: 'v\n' }, gone: { toJSON: () => undefined }, 'key "quoted"': 'é', '': '' })] }],
    ['escapes at the edges of long strings', { items: [unrendered({ a: `"${'x'.repeat(100)}"`, b: `\\${'é'.repeat(70)}\n`, c: '"'.repeat(80), d: '\u007f\u0080\u2028\u2029' })] }],
  ]

  it.each(values)('%s: the bytes of JSON.stringify', (_name, value) => {
    const expected = JSON.stringify(value) ?? 'null'
    const bytes = jsonBytes(value)
    expect(bytes.toString('utf8')).toBe(expected)
    expect(bytes.equals(Buffer.from(expected))).toBe(true)
  })

  it('random strings in records rendered as they are written: the bytes of JSON.stringify', () => {
    const alphabet = ['a', 'Z', ' ', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '—', '新', '📰', '\ud800', '\udfff', '<', '/']
    let seed = 42
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: Math.floor(next() * 200) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('')
      const value = { items: [unrendered({ body: text, tags: [text, text.slice(1)] }), unrendered({ short: text.slice(0, 10) })] }
      expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value)))).toBe(true)
    }
  })

  it('long strings with one character to escape, anywhere, or none: the bytes of JSON.stringify', () => {
    // Long strings JSON leaves unchanged are copied in whole (json-bytes.ts, escapesNothing):
    // one character JSON escapes, or a lone surrogate, must still be escaped wherever it stands.
    const odd = [...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)), '"', '\\', '\ud800', '\udbff', '\udc00', '\udfff', '📰', '\u007f', '\u2028', 'é']
    for (const background of ['x'.repeat(300), 'Riverside’s plan — 新聞 '.repeat(20), 'é'.repeat(65)]) {
      const values = [background, ...odd.flatMap((character) => [character + background, background.slice(0, 150) + character + background.slice(150), background + character])]
      for (const text of values) {
        const value = { items: [unrendered({ body: text, tags: [text] })], text }
        expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value)))).toBe(true)
      }
    }
  })

  it('an answer larger than the buffer it is written into', () => {
    const value = { items: Array.from({ length: 40 }, () => unrendered(record('<p>"x"</p>'.repeat(3_000)))) }
    expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value)))).toBe(true)
    expect(jsonBytes({ a: 1 }).toString()).toBe('{"a":1}')
  })
})
