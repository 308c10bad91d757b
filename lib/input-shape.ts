import { DomainError, ValidationError, type FieldError } from './errors.ts'

/**
 * What every input must be before a schema is asked about it, on every door (/v1 bodies,
 * queries and path ids, tRPC inputs): nested at most `maxInputNestingDepth` objects and
 * arrays deep, and valid Unicode without NUL. Both are checked without recursion, so no input can
 * exhaust the stack of what reads it next (zod, the idempotency fingerprint, Prisma).
 */
export const maxInputNestingDepth = 64

export function nestingTooDeep(): DomainError {
  return new DomainError(
    'nesting_too_deep',
    `The input nests objects and arrays more than ${maxInputNestingDepth} levels deep; nothing here takes more than a few. Flatten it.`,
    { max_depth: maxInputNestingDepth },
  )
}

const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d
const quote = 0x22
const backslash = 0x5c

/**
 * Whether JSON text (its UTF-8 bytes) nests deeper than `max`, read byte by byte before it is
 * parsed. Brackets inside strings do not count; UTF-8 never puts these ASCII bytes inside a
 * multi-byte character, so no decoding is needed. Text that is not JSON is left to the parser.
 */
export function jsonTextNestsDeeperThan(bytes: Uint8Array, max = maxInputNestingDepth): boolean {
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    if (byte === quote) i = closingQuote(bytes, i)
    else if (byte === openBrace || byte === openBracket) {
      if (++depth > max) return true
    } else if (byte === closeBrace || byte === closeBracket) depth--
  }
  return false
}

/**
 * Where the string opened at `open` ends (or the text's end). Found with indexOf, which skips
 * a string's bytes natively: most of a body's bytes are its strings, and a loop over them in
 * JavaScript cost as much as JSON.parse (42 ms for a 29 MiB bulk import; now a fraction).
 */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open
  for (;;) {
    at = bytes.indexOf(quote, at + 1)
    if (at < 0) return bytes.length
    let backslashes = 0
    while (bytes[at - 1 - backslashes] === backslash) backslashes++
    if (backslashes % 2 === 0) return at
  }
}

/**
 * Refuses an input nested too deep (nesting_too_deep) or holding a lone UTF-16 surrogate or a
 * NUL in a key or a value (validation_failed naming each such field). JSON may escape a lone
 * surrogate (`"\ud800"`), JSON.parse accepts it, but it is no character: PostgreSQL refuses it
 * in JSON and turns it into U+FFFD in text, so it would fail the write or change the text
 * unannounced. PostgreSQL refuses NUL in both.
 */
export function assertInputShape(input: unknown): void {
  if (input === null || typeof input !== 'object') {
    const error = typeof input === 'string' ? textError('', 'value', input) : null
    if (error) throw new ValidationError([error], unstorableTextMessage)
    return
  }
  const errors: FieldError[] = []
  // Each entry: a container, its dotted path and its depth; walked with a stack, not recursion.
  const pending: [object, string, number][] = [[input, '', 1]]
  while (pending.length > 0) {
    const [container, path, depth] = pending.pop()!
    if (depth > maxInputNestingDepth) throw nestingTooDeep()
    const entries: [string, unknown][] = Array.isArray(container) ? container.map((value, index) => [String(index), value]) : Object.entries(container)
    for (const [key, value] of entries) {
      const field = path ? `${path}.${readable(key)}` : readable(key)
      const keyError = Array.isArray(container) ? null : textError(field, 'key', key)
      if (keyError) errors.push(keyError)
      if (typeof value === 'string') {
        const valueError = textError(field, 'value', value)
        if (valueError) errors.push(valueError)
      } else if (value !== null && typeof value === 'object') pending.push([value, field, depth + 1])
    }
    // One report names enough fields to fix; a body made of nothing else need not list them all.
    if (errors.length >= 20) break
  }
  if (errors.length > 0) throw new ValidationError(errors, unstorableTextMessage)
}

const unstorableTextMessage = 'The request holds text that is not valid Unicode or holds NUL; see errors.'

/** What is wrong with a key or a text no field could store, or null. */
function textError(field: string, where: 'key' | 'value', text: string): FieldError | null {
  if (!text.isWellFormed()) return surrogateError(field, where, text)
  // PostgreSQL's text and JSON cannot hold NUL: left to the database, any field's NUL was a 500.
  if (text.includes('\u0000')) return { field: field || '(body)', message: `${where === 'key' ? `The key '${readable(text)}'` : 'The text'} contains NUL (\\u0000), which no text here can hold; remove it.` }
  return null
}

function surrogateError(field: string, where: 'key' | 'value', text: string): FieldError {
  const escaped = `\\u${firstLoneSurrogate(text).charCodeAt(0).toString(16)}`
  return {
    field: field || '(body)',
    message: `${where === 'key' ? `The key '${readable(text)}'` : 'The text'} contains a lone UTF-16 surrogate (${escaped}); send valid Unicode (a surrogate escape must be one of a high-low pair, such as \\ud83d\\ude00).`,
  }
}

function firstLoneSurrogate(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
      else return text[i]!
    } else if (code >= 0xdc00 && code <= 0xdfff) return text[i]!
  }
  return ''
}

/**
 * A key as a field path can carry it: a lone surrogate or a NUL written as its escape, so the
 * answer is valid Unicode itself and can be stored (the request log, an idempotent replay).
 */
function readable(key: string): string {
  const named = key.includes('\u0000') ? key.replaceAll('\u0000', '\\u0000') : key
  return named.isWellFormed() ? named : named.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (s) => `\\u${s.charCodeAt(0).toString(16)}`)
}
