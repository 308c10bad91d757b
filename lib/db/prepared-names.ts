import { createHash } from 'node:crypto'

// A statement's prepared name by its text: hashing a 1-2 KB text on every read was 3% of the
// service's CPU for a search (a CPU profile at 1,000,000 articles). The texts are the code's,
// with values as parameters, so they are few; the cap only guards against a caller that is not.
const preparedNames = new Map<string, string>()
const maxPreparedNames = 1_000

/** The name a statement is prepared under on every connection: one per text, whoever runs it. */
export function preparedNameOf(text: string): string {
  let name = preparedNames.get(text)
  if (name === undefined) {
    if (preparedNames.size >= maxPreparedNames) preparedNames.clear()
    name = `stmt-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`
    preparedNames.set(text, name)
  }
  return name
}
