const brand = Symbol.for('newsroom.rendered-json')

/**
 * A value already rendered as JSON (its UTF-8 bytes), to be written into a larger answer as is:
 * lib/json-bytes.ts copies the bytes where the value stands. `members`, when given, are
 * added at the end of the rendered object (a search's `match` after an article's record).
 * Anything else that serialises it (JSON.stringify, a test) gets the same value through toJSON.
 */
export class RenderedJson {
  readonly [brand] = true
  constructor(
    readonly bytes: Buffer,
    readonly members?: Record<string, unknown>,
  ) {}

  toJSON(): unknown {
    const value = JSON.parse(this.bytes.toString('utf8'))
    return this.members ? { ...value, ...this.members } : value
  }
}

export function isRenderedJson(value: unknown): value is RenderedJson {
  return typeof value === 'object' && value !== null && (value as { [brand]?: true })[brand] === true
}
