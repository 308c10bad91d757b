const brand = Symbol.for('newsroom.rendered-json')

/**
 * A value already rendered as JSON, to be written into a larger answer as is: lib/json-bytes.ts
 * copies it where the value stands. `json` is its UTF-8 bytes when they are kept for later
 * answers (an article's record, rendered-records.ts), else its text, encoded only once, into
 * the answer's own bytes. `members`, when given, are added at the end of the rendered object (a
 * search's `match` after an article's record). Anything else that serialises it
 * (JSON.stringify, a test) gets the same value through toJSON.
 */
export class RenderedJson {
  readonly [brand] = true
  constructor(
    readonly json: Buffer | string,
    readonly members?: Record<string, unknown>,
  ) {}

  toJSON(): unknown {
    const value = JSON.parse(typeof this.json === 'string' ? this.json : this.json.toString('utf8'))
    return this.members ? { ...value, ...this.members } : value
  }
}

export function isRenderedJson(value: unknown): value is RenderedJson {
  return typeof value === 'object' && value !== null && (value as { [brand]?: true })[brand] === true
}
