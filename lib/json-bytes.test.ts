import { describe, expect, it } from 'vitest'
import { jsonBytes } from './json-bytes.ts'
import { RenderedJson } from './rendered-json.ts'

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
  ]

  it.each(values)('%s: the bytes of JSON.stringify', (_name, value) => {
    const expected = JSON.stringify(value) ?? 'null'
    const bytes = jsonBytes(value)
    expect(bytes.toString('utf8')).toBe(expected)
    expect(bytes.equals(Buffer.from(expected))).toBe(true)
  })
})
