const brand = Symbol.for('newsroom.rendered-json')

/**
 * An object to be rendered only when its answer is encoded: lib/json-bytes.ts writes its members
 * straight into the answer's bytes. Why: a record shown once (a cold list's, rendered for that
 * answer alone) was a JSON.stringify text of its own (~4 KB, built in parts, so flattened again
 * when measured and encoded): with the body pg read, ~1.25 MB of V8's young generation a
 * 50-article page, and pages in flight at 32 connections outlived scavenges (issue 50). Its
 * members are rendered as JSON.stringify renders them.
 */
export class UnrenderedObject {
  constructor(readonly value: Record<string, unknown>) {}
}

/**
 * A value already rendered as JSON, to be written into a larger answer as is: lib/json-bytes.ts
 * copies it where the value stands. `json` is its UTF-8 bytes when they are kept for later
 * answers (an article's record, rendered-records.ts), else its text, encoded only once, into
 * the answer's own bytes, or the object itself (UnrenderedObject), written into the answer's
 * bytes as it is encoded. `members`, when given, are added at the end of the rendered object (a
 * search's `match` after an article's record). Anything else that serialises it
 * (JSON.stringify, a test) gets the same value through toJSON.
 */
export class RenderedJson {
  readonly [brand] = true
  constructor(
    readonly json: Buffer | string | UnrenderedObject,
    readonly members?: Record<string, unknown>,
  ) {}

  toJSON(): unknown {
    const json = this.json
    const value = JSON.parse(json instanceof UnrenderedObject ? JSON.stringify(json.value) : typeof json === 'string' ? json : json.toString('utf8'))
    return this.members ? { ...value, ...this.members } : value
  }
}

export function isRenderedJson(value: unknown): value is RenderedJson {
  return typeof value === 'object' && value !== null && (value as { [brand]?: true })[brand] === true
}
