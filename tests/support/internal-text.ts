/**
 * Text that belongs in the server log and never in an answer: an ORM's or driver's wording,
 * SQL, stack frames, source paths, a JavaScript runtime error. The fuzz tests of every door
 * (/v1 and the portal's procedures) fail when an answer carries any of it.
 */
const internalPatterns: [string, RegExp][] = [
  ['Prisma wording', /prisma|invalid `|invocation:|Argument `\w+`|Unknown argument|PrismaClient/i],
  // Prisma's error codes (P2002…), as a word of their own: case-sensitive, so that the random
  // letters and digits of an id (req_…p4020) are not taken for one.
  ['a Prisma error code', /(?<![A-Za-z0-9_])P\d{4}\b/],
  ['SQL', /\b(SELECT\s.+\sFROM|INSERT INTO|UPDATE\s+"|DELETE FROM|violates (?:unique|foreign key|check|not-null) constraint|relation "\w+"|column "\w+"|syntax error at or near)/i],
  ['a stack frame', /\n\s+at\s|\bat\s+\S+\s+\([^)]*:\d+:\d+\)|\.(?:ts|tsx|js|mjs):\d+(?::\d+)?/],
  ['a source path', /node_modules|\/work\/|webpack-internal|\.next\/server/],
  ['a runtime error', /\b(TypeError|ReferenceError|RangeError|SyntaxError):|Cannot read propert|is not a function|undefined is not|ECONNREFUSED|invalid input syntax for/],
]

/** The kind of internal text `text` carries, with the piece found, or null. */
export function internalTextIn(text: string): string | null {
  for (const [kind, pattern] of internalPatterns) {
    const match = pattern.exec(text)
    if (match) return `${kind}: ${JSON.stringify(match[0].slice(0, 80))}`
  }
  return null
}
