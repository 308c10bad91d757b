import { isRenderedJson, type RenderedJson } from './rendered-json.ts'

/**
 * A value's JSON text as UTF-8 bytes, the same bytes as the encoding of JSON.stringify(value),
 * made without ever holding the whole text as one string.
 *
 * Why: a 50-article page is ~200 KB. JSON.stringify gives it back as a rope that must be
 * flattened before it can be encoded, and each flat copy that size is a new large-object page
 * in V8 that the kernel maps and faults in, then unmaps (perf, cold lists: page faults and the
 * copies into fresh pages were a third of the service's CPU on this VM; rendering 1.4 -> 0.6 ms
 * a page). Rendered here element by element, every string stays small (an article, ~4 KB) and
 * only the one buffer of the page's length is allocated.
 *
 * Only the top level is taken apart: an object's members, and the elements of the arrays among
 * them (a page's `items`). An element already rendered (RenderedJson: an article's record, kept
 * as bytes or rendered for this answer alone, lib/articles/rendered-records.ts) is copied in as it is. Anything else with toJSON,
 * and any other value, is stringified whole.
 */
export function jsonBytes(value: unknown): Buffer {
  const pieces = jsonPieces(value)
  let length = 0
  const lengths = pieces.map((piece) => {
    const bytes = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length
    length += bytes
    return bytes
  })
  const bytes = Buffer.allocUnsafe(length)
  let offset = 0
  for (const [index, piece] of pieces.entries()) {
    offset += typeof piece === 'string' ? bytes.write(piece, offset, lengths[index]!) : piece.copy(bytes, offset)
  }
  return bytes
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
}

/** A rendered value's pieces: its bytes, with its members written in before the object's closing brace. */
function renderedPieces({ json, members }: RenderedJson): (string | Buffer)[] {
  if (!members) return [json]
  const pieces: (string | Buffer)[] = [typeof json === 'string' ? json.slice(0, -1) : json.subarray(0, json.length - 1)]
  // An empty object ('{}') takes its first member without a comma.
  let separator = json.length > 2 ? ',' : ''
  for (const [key, member] of Object.entries(members)) {
    const json = JSON.stringify(member)
    if (json === undefined) continue
    pieces.push(`${separator}${JSON.stringify(key)}:${json}`)
    separator = ','
  }
  pieces.push('}')
  return pieces
}

function jsonPieces(value: unknown): (string | Buffer)[] {
  if (isRenderedJson(value)) return renderedPieces(value)
  if (!isPlainObject(value)) return [JSON.stringify(value) ?? 'null']
  const pieces: (string | Buffer)[] = []
  let separator = '{'
  for (const key of Object.keys(value)) {
    const member = value[key]
    // Skipped as JSON.stringify skips them.
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue
    const name = `${separator}${JSON.stringify(key)}:`
    separator = ','
    if (!Array.isArray(member) || typeof (member as { toJSON?: unknown }).toJSON === 'function') {
      pieces.push(name + JSON.stringify(member))
      continue
    }
    pieces.push(`${name}[`)
    for (let index = 0; index < member.length; index++) {
      const element = member[index]
      if (isRenderedJson(element)) {
        if (index > 0) pieces.push(',')
        pieces.push(...renderedPieces(element))
        continue
      }
      // In an array, what JSON.stringify leaves out of an object is written as null.
      pieces.push((index === 0 ? '' : ',') + (JSON.stringify(element) ?? 'null'))
    }
    pieces.push(']')
  }
  pieces.push(separator === '{' ? '{}' : '}')
  return pieces
}
