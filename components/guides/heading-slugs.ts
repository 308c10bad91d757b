import type { Token, Tokens } from 'marked'

/**
 * Heading anchors as GitHub makes them (lower case, punctuation dropped, spaces to hyphens,
 * -1, -2… for repeats), so a link written for GitHub (`admins.md#signing-in`) works in the app.
 */
export function headingSlugger(): (text: string) => string {
  const seen = new Map<string, number>()
  return (text) => {
    const base = text.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    return count === 0 ? base : `${base}-${count}`
  }
}

/** The plain text of inline tokens, as GitHub reads a heading for its anchor. */
export function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((token) => {
      if (token.type === 'codespan') return (token as Tokens.Codespan).text
      if ('tokens' in token && token.tokens) return plainText(token.tokens)
      return 'text' in token ? String(token.text) : ''
    })
    .join('')
}
