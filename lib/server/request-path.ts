/**
 * Whether a request target's path decodes: each `%` begins an escape of valid UTF-8. Next decodes
 * a page's or route's dynamic segments itself, and a segment such as `%FF`, `%ED%A0%80` (a lone
 * surrogate) or a bare `%` made it answer 500 "Internal Server Error" (its own 400 page failed
 * to render), on the portal's pages, tRPC and next-auth alike.
 */
export function hasDecodablePath(target: string): boolean {
  const path = targetPath(target)
  if (!path.includes('%')) return true
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

export const undecodablePathDetail = 'The address holds a malformed percent-escape: each % must begin an escape of UTF-8, such as %C3%A9 for é or %25 for % itself.'

/** A request target's path as sent: before its query, not normalised (dot-segments kept). */
export function targetPath(target: string): string {
  const query = target.indexOf('?')
  return query === -1 ? target : target.slice(0, query)
}
