const brand = Symbol.for('newsroom.rendered-json')

/**
 * A value already rendered as JSON (its UTF-8 bytes), to be written into a larger answer as is:
 * lib/api/json-bytes.ts copies the bytes where the value stands. Anything else that serialises
 * it (JSON.stringify, a test) gets the same value back through toJSON.
 */
export class RenderedJson {
  readonly [brand] = true
  constructor(readonly bytes: Buffer) {}

  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'))
  }
}

export function isRenderedJson(value: unknown): value is RenderedJson {
  return typeof value === 'object' && value !== null && (value as { [brand]?: true })[brand] === true
}
