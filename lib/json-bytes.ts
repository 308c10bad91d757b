import { isRenderedJson, UnrenderedObject, type RenderedJson } from './rendered-json.ts'

/**
 * A value's JSON text as UTF-8 bytes, the same bytes as the encoding of JSON.stringify(value),
 * made without ever holding the whole text as one string.
 *
 * Why: a 50-article page is ~200 KB. JSON.stringify gives it back as a rope that must be
 * flattened before it can be encoded, and each flat copy that size is a new large-object page
 * in V8 that the kernel maps and faults in, then unmaps (perf, cold lists: page faults and the
 * copies into fresh pages were a third of the service's CPU on this VM; rendering 1.4 -> 0.6 ms
 * a page). Rendered here element by element, every string stays small (an article, ~4 KB).
 *
 * The bytes are written into one buffer kept by the process and reused by every answer, then
 * copied out at their exact length. Pieces used to be measured first (Buffer.byteLength) and
 * then written: measuring a JSON.stringify text, which V8 builds in parts, flattens it into a
 * copy, ~190 KB of V8's young generation a cold list page (issue 50, sampled allocations).
 *
 * Only the top level is taken apart: an object's members, and the elements of the arrays among
 * them (a page's `items`). An element already rendered (RenderedJson: an article's record, kept
 * as bytes or rendered for this answer alone, lib/articles/rendered-records.ts) is copied in as
 * it is; one to be rendered as it is written (UnrenderedObject) has its members written straight
 * into the bytes. Anything else with toJSON, and any other value, is stringified whole.
 */
export function jsonBytes(value: unknown): Buffer {
  // Re-entered (a toJSON that renders an answer of its own): that one gets a buffer of its own.
  const own = writing
  const writer = new ByteWriter(own ? Buffer.allocUnsafe(initialBytes) : shared)
  writing = true
  try {
    writeValue(writer, value)
    const bytes = Buffer.allocUnsafe(writer.at)
    writer.bytes.copy(bytes, 0, 0, writer.at)
    return bytes
  } finally {
    if (!own) {
      writing = false
      // A buffer grown for one very large answer is not kept for the next ones.
      shared = writer.bytes.length > keptBytes ? Buffer.allocUnsafe(initialBytes) : writer.bytes
    }
  }
}

const initialBytes = 256 * 1024
const keptBytes = 4 * 1024 * 1024
let shared: Buffer = Buffer.allocUnsafe(initialBytes)
let writing = false

class ByteWriter {
  at = 0
  constructor(public bytes: Buffer) {}

  /** Room for `count` more bytes. */
  reserve(count: number): void {
    if (this.at + count <= this.bytes.length) return
    let length = this.bytes.length * 2
    while (length < this.at + count) length *= 2
    const grown = Buffer.allocUnsafe(length)
    this.bytes.copy(grown, 0, 0, this.at)
    this.bytes = grown
  }

  /** Text that is JSON already (a UTF-8 code unit is at most 3 bytes of a UTF-16 one). */
  text(text: string): void {
    if (text.length <= shortText && this.ascii(text)) return
    this.reserve(text.length * 3)
    this.at += this.bytes.write(text, this.at)
  }

  /**
   * A short text of ASCII characters copied in by hand, where a call into Node's encoder for
   * each key and date of each record cost more than the copy; false (nothing written) for any
   * other character, or, with `escapable`, for one JSON would escape.
   */
  ascii(text: string, escapable = false): boolean {
    const length = text.length
    this.reserve(length)
    const bytes = this.bytes
    const at = this.at
    for (let index = 0; index < length; index++) {
      const code = text.charCodeAt(index)
      if (code >= 0x80 || (escapable && (code < 0x20 || code === 0x22 || code === 0x5c))) return false
      bytes[at + index] = code
    }
    this.at = at + length
    return true
  }

  raw(json: Buffer | string): void {
    if (typeof json === 'string') return this.text(json)
    this.reserve(json.length)
    this.at += json.copy(this.bytes, this.at)
  }

  /** A string as JSON.stringify writes it. */
  string(value: string): void {
    this.reserve(1)
    this.bytes[this.at++] = 0x22
    if (value.length <= shortText && this.ascii(value, true)) {
      this.reserve(1)
      this.bytes[this.at++] = 0x22
      return
    }
    // A long text JSON leaves as it is (an article's body, ~4 KB) is copied in whole: asking
    // for each character JSON escapes by itself is a native memchr-like scan each, together
    // ~5x cheaper than the regular expression's search through it, which was ~400 µs of CPU a
    // 50-article page (5 % of a cold list's, profile at 100,000 articles).
    if (value.length > shortText && escapesNothing(value)) {
      this.text(value)
      this.reserve(1)
      this.bytes[this.at++] = 0x22
      return
    }
    const start = this.at - 1
    escaped.lastIndex = 0
    let from = 0
    for (let match = escaped.exec(value); match !== null; match = escaped.exec(value)) {
      const at = match.index
      const code = value.charCodeAt(at)
      // A surrogate: JSON.stringify escapes a lone one, where encoding it would give U+FFFD.
      if (code >= 0xd800) {
        this.at = start
        this.text(JSON.stringify(value))
        return
      }
      if (at > from) this.text(value.slice(from, at))
      this.ascii(escapes[code]!)
      from = at + 1
    }
    this.text(from === 0 ? value : value.slice(from))
    this.reserve(1)
    this.bytes[this.at++] = 0x22
  }
}

// Texts this short are copied by hand when they are ASCII (ids, dates, keys, statuses).
const shortText = 64
// What JSON.stringify escapes in a string: quote, backslash, control characters, and (well-formed
// JSON.stringify) lone surrogates, which ByteWriter#string leaves to JSON.stringify itself.
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/g
const escapes = Array.from({ length: 0x5d }, (_, code) => JSON.stringify(String.fromCharCode(code)).slice(1, -1))
// Every character JSON.stringify escapes on its own (what `escaped` finds, lone surrogates aside),
// those an HTML body most often holds first: a body with a quoted attribute or a line break gives
// up after a scan or two to its first one, not after thirty whole scans.
const escapedCharacters = [...new Set(['"', '\n', '\\', '\r', '\t', ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code))])]

/** Whether JSON.stringify writes `value` between its quotes unchanged: no character to escape, no lone surrogate. */
function escapesNothing(value: string): boolean {
  for (let index = 0; index < escapedCharacters.length; index++) if (value.includes(escapedCharacters[index]!)) return false
  // Well-formed surrogate pairs are written as they are, by JSON.stringify and by UTF-8 alike.
  return value.isWellFormed()
}

// Each member name as JSON.stringify writes it, with its colon: a record's names are the same every time.
const names = new Map<string, string>()
function nameOf(key: string): string {
  let name = names.get(key)
  if (name === undefined) {
    name = `${JSON.stringify(key)}:`
    if (names.size < 1_000) names.set(key, name)
  }
  return name
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
}

/** Whether JSON.stringify leaves a member out of an object (it writes null for it in an array). */
function leftOut(member: unknown): boolean {
  return member === undefined || typeof member === 'function' || typeof member === 'symbol'
}

/** A rendered value: its bytes, with its members written in before the object's closing brace. */
function writeRendered(writer: ByteWriter, { json, members }: RenderedJson): void {
  if (json instanceof UnrenderedObject) return writeObject(writer, json.value, members)
  if (!members) return writer.raw(json)
  writer.raw(typeof json === 'string' ? json.slice(0, -1) : json.subarray(0, json.length - 1))
  // An empty object ('{}') takes its first member without a comma.
  writeMembers(writer, members, json.length > 2)
  writer.text('}')
}

/** An object's members, each as JSON.stringify writes it; returns whether any was written. */
function writeMembers(writer: ByteWriter, value: Record<string, unknown>, afterOthers: boolean): boolean {
  let separated = afterOthers
  for (const key of Object.keys(value)) {
    const member = value[key]
    if (leftOut(member)) continue
    // Strings and arrays are written in place; anything else is stringified first, since its
    // toJSON may leave it out (undefined) as JSON.stringify would.
    const json = typeof member === 'string' || writtenInPlace(member) ? null : primitiveJson(member) ?? JSON.stringify(member)
    if (json === undefined) continue
    if (separated) writer.text(',')
    separated = true
    writer.text(nameOf(key))
    if (json !== null) writer.text(json)
    else writeMember(writer, member as string | unknown[])
  }
  return separated
}

/**
 * null, a boolean or a number as JSON.stringify writes them, without a new string for each (a
 * small integer's text is V8's cached one); undefined for anything else.
 */
function primitiveJson(member: unknown): string | undefined {
  if (member === null) return 'null'
  if (typeof member === 'number') return Number.isFinite(member) ? String(member) : 'null'
  if (typeof member === 'boolean') return member ? 'true' : 'false'
  return undefined
}

/** An array JSON.stringify writes element by element (no toJSON of its own). */
function writtenInPlace(member: unknown): member is unknown[] {
  return Array.isArray(member) && typeof (member as { toJSON?: unknown }).toJSON !== 'function'
}

/** An object rendered as it is written (UnrenderedObject), and `members` after its own. */
function writeObject(writer: ByteWriter, value: Record<string, unknown>, members?: Record<string, unknown>): void {
  writer.text('{')
  const any = writeMembers(writer, value, false)
  if (members) writeMembers(writer, members, any)
  writer.text('}')
}

/** A string, or an array (writtenInPlace), written in place. */
function writeMember(writer: ByteWriter, member: string | unknown[]): void {
  if (typeof member === 'string') return writer.string(member)
  writer.text('[')
  for (let index = 0; index < member.length; index++) {
    if (index > 0) writer.text(',')
    const element: unknown = member[index]
    if (typeof element === 'string') writer.string(element)
    // In an array, what JSON.stringify leaves out of an object is written as null.
    else writer.text(JSON.stringify(element) ?? 'null')
  }
  writer.text(']')
}

function writeValue(writer: ByteWriter, value: unknown): void {
  if (isRenderedJson(value)) return writeRendered(writer, value)
  if (!isPlainObject(value)) return writer.text(JSON.stringify(value) ?? 'null')
  let separator = '{'
  for (const key of Object.keys(value)) {
    const member = value[key]
    // Skipped as JSON.stringify skips them.
    if (leftOut(member)) continue
    const json = writtenInPlace(member) ? null : JSON.stringify(member)
    // A toJSON that gives undefined: left out, as JSON.stringify leaves it.
    if (json === undefined) continue
    writer.text(separator)
    writer.text(nameOf(key))
    separator = ','
    if (json !== null) {
      writer.text(json)
      continue
    }
    const elements = member as unknown[]
    writer.text('[')
    for (let index = 0; index < elements.length; index++) {
      const element = elements[index]
      if (index > 0) writer.text(',')
      if (isRenderedJson(element)) writeRendered(writer, element)
      // In an array, what JSON.stringify leaves out of an object is written as null.
      else writer.text(JSON.stringify(element) ?? 'null')
    }
    writer.text(']')
  }
  writer.text(separator === '{' ? '{}' : '}')
}
