import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { fastTextArray, fastTimestamptz } from './fast-type-parsers.ts'

const pgTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => unknown
const pgTextArray = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]) as (text: string) => unknown
const timestamptz = fastTimestamptz(pgTimestamptz)
const textArray = fastTextArray(pgTextArray)

// The same value as pg's own parser: a Date of the same time (or whatever pg gives), an array of the same elements.
const same = (a: unknown, b: unknown) => {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime())
  return JSON.stringify(a) === JSON.stringify(b)
}

describe('fast type parsers', () => {
  it.each([
    '2026-11-29 19:57:18.123456+00',
    '2026-11-29 19:57:18.1+00',
    '2026-11-29 19:57:18.009+00',
    '2026-11-29 19:57:18.291+00',
    '2026-11-29 19:57:18.999999+00',
    '2026-11-29 19:57:18+00',
    '2026-02-30 25:61:61+00',
    '1000-01-01 00:00:00+00',
    '0999-01-01 00:00:00+00',
    '0044-03-15 12:00:00+00 BC',
    '0050-01-01 00:00:00+00',
    '12026-11-29 19:57:18+00',
    '2026-11-29 19:57:18.123456+05:30',
    '2026-11-29 19:57:18-08',
    '2026-11-29 19:57:18.+00',
    '2026-11-29 19:57:1a+00',
    'infinity',
    '-infinity',
    '2026-11-29',
  ])('timestamptz %s as pg parses it', (text) => {
    expect(same(timestamptz(text), pgTimestamptz(text))).toBe(true)
  })

  it('every fraction of a second pg may write, as pg parses it', () => {
    for (let fraction = 0; fraction < 1_000_000; fraction += 7) {
      for (const digits of [1, 2, 3, 4, 5, 6]) {
        const text = `2026-11-29 19:57:18.${String(fraction).padStart(6, '0').slice(0, digits)}+00`
        if (!same(timestamptz(text), pgTimestamptz(text))) throw new Error(text)
      }
    }
  })

  it('random times, as pg parses them', () => {
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 20_000; round++) {
      const at = new Date(Date.UTC(1000, 0, 1) + next() * (Date.UTC(9999, 11, 31) - Date.UTC(1000, 0, 1)))
      const micros = String(Math.floor(next() * 1_000_000)).padStart(6, '0').replace(/0+$/, '')
      const text = `${at.toISOString().slice(0, 19).replace('T', ' ')}${micros ? `.${micros}` : ''}+00`
      if (!same(timestamptz(text), pgTimestamptz(text))) throw new Error(text)
    }
  })

  it.each(['{}', '{a}', '{tag-1,tag-2}', '{NULL}', '{a,NULL,b}', '{null}', '{"a b",c}', '{"",a}', '{"NULL"}', '{a\\,b}', '{{a,b},{c,d}}', '[1:2]={a,b}', '{a,,b}', '{ a }', '{é,新聞,📰}', '', '{', 'x'])('text[] %s as pg parses it', (text) => {
    let expected: unknown
    let thrown = false
    try {
      expected = pgTextArray(text)
    } catch {
      thrown = true
    }
    if (thrown) expect(() => textArray(text)).toThrow()
    else expect(same(textArray(text), expected)).toBe(true)
  })

  it('reads the columns of a row as pg does, installed', async () => {
    const { installFastTypeParsers } = await import('./fast-type-parsers.ts')
    installFastTypeParsers()
    expect(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)('2026-11-29 19:57:18.5+00')).toEqual(new Date('2026-11-29T19:57:18.500Z'))
    expect(pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0])('{a,b}')).toEqual(['a', 'b'])
  })
})
