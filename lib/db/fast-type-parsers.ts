import pg from 'pg'
import { nativeDate } from '../native-date.ts'

type Parser = (text: string) => unknown

/**
 * Faster parsers for the two column types every article row carries several of: timestamptz
 * (published_at, scheduled_publish_at, created_at, updated_at) and text[] (tags, previous_urls).
 * Each reads the one shape PostgreSQL writes for these columns in this service (ISO DateStyle,
 * a UTC session: `2026-11-29 19:57:18.123456+00`; an array of plain elements: `{a,b}`) by hand
 * and gives what pg's own parser gives; anything else goes to pg's own parser.
 *
 * Why: pg's parsers allocate a regular expression match (8 captures) and several strings for a
 * date, an object per character for an array; a cold list page's four dates and two arrays a
 * row were ~20 % of what the page allocated in V8's young generation (issue 50, sampled
 * allocations), which pages in flight keep through scavenges into the old generation.
 */
export function fastTimestamptz(fallback: Parser): Parser {
  // Not Next's wrapper of the global Date (lib/native-date.ts): the same dates, made directly.
  const NativeDate = nativeDate()
  return (text) => {
    // YYYY-MM-DD HH:MM:SS[.f…]+00: years from 1000 (0-99 are another case of pg's), UTC.
    const length = text.length
    if (length < 22 || length > 29 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return fallback(text)
    if (text.charCodeAt(length - 3) !== 43 || text.charCodeAt(length - 2) !== 48 || text.charCodeAt(length - 1) !== 48) return fallback(text)
    const year = digits(text, 0, 4)
    const month = digits(text, 5, 2)
    const day = digits(text, 8, 2)
    const hour = digits(text, 11, 2)
    const minute = digits(text, 14, 2)
    const second = digits(text, 17, 2)
    if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return fallback(text)
    let ms = 0
    const fractionEnd = length - 3
    if (fractionEnd > 19) {
      if (text.charCodeAt(19) !== 46 || fractionEnd === 20) return fallback(text)
      const fraction = digits(text, 20, fractionEnd - 20)
      if (fraction < 0) return fallback(text)
      // As pg's 1000 * parseFloat('.123456'): the division of two exact integers rounds to the
      // same double as parsing the decimal does.
      ms = 1000 * (fraction / 10 ** (fractionEnd - 20))
    }
    return new NativeDate(NativeDate.UTC(year, month - 1, day, hour, minute, second, ms))
  }
}

/** The decimal number of `count` digits from `from`, or -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0
  for (let index = from; index < from + count; index++) {
    const digit = text.charCodeAt(index) - 48
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

export function fastTextArray(fallback: Parser): Parser {
  return (text) => {
    if (!text) return fallback(text)
    const length = text.length
    if (text.charCodeAt(0) !== 123 || text.charCodeAt(length - 1) !== 125) return fallback(text)
    if (length === 2) return []
    // Quoted elements, escapes and nested arrays are pg's.
    for (let index = 1; index < length - 1; index++) {
      const code = text.charCodeAt(index)
      if (code === 34 || code === 92 || code === 123 || code === 125) return fallback(text)
    }
    const elements: (string | null)[] = []
    let from = 1
    for (let index = 1; index < length; index++) {
      if (index < length - 1 && text.charCodeAt(index) !== 44) continue
      // An empty unquoted element is left out, and an unquoted NULL is null, as pg's parser does.
      if (index > from) {
        const element = text.slice(from, index)
        elements.push(element === 'NULL' ? null : element)
      }
      from = index + 1
    }
    return elements
  }
}

const installed = Symbol.for('newsroom.fast-type-parsers')

/** Registers the parsers with pg for every connection of this process (once). */
export function installFastTypeParsers(): void {
  const registry = pg.types as typeof pg.types & { [installed]?: true }
  if (registry[installed]) return
  registry[installed] = true
  const { TIMESTAMPTZ } = pg.types.builtins
  const textArray = 1009 as Parameters<typeof pg.types.getTypeParser>[0]
  pg.types.setTypeParser(TIMESTAMPTZ, fastTimestamptz(pg.types.getTypeParser(TIMESTAMPTZ) as Parser))
  pg.types.setTypeParser(textArray, fastTextArray(pg.types.getTypeParser(textArray) as Parser))
}
