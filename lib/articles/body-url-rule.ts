// The body's URL allow-list, in a module of its own so the portal's editor checks a link with
// the very rule sanitizeBody applies on write (sanitize-body.ts imports it), without bundling
// the sanitiser into the browser.
export const linkSchemes = ['http', 'https', 'mailto', 'tel']
export const imageSchemes = ['https']

/** Why a URL would be removed from a body ('javascript: URL', 'protocol-relative URL'), or null when it is kept. Relative URLs are kept. */
export function urlRefusal(value: string, schemes: string[]): string | null {
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
  const compact = value.replace(/[\u0000-\u0020]/g, '').toLowerCase()
  if (compact.startsWith('//')) return 'protocol-relative URL'
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(compact)?.[1]
  if (scheme === undefined || schemes.includes(scheme)) return null
  return `${scheme}: URL`
}

/**
 * What the editor's Link button says about an address, or null when the body keeps it. An
 * address without a scheme that looks like a host ("example.com/x") is refused with a hint,
 * since it would be kept as a relative link to a page of the newsroom's own site.
 */
export function linkAddressProblem(value: string): string | null {
  const address = value.trim()
  if (!address) return 'Enter the address the link goes to.'
  const refusal = urlRefusal(address, linkSchemes)
  if (refusal === 'protocol-relative URL') return 'Start the address with https:// (an address starting with // is removed from the body).'
  if (refusal) return `A ${refusal.replace(' URL', '')} link is removed from the body. Use an address starting with http://, https://, mailto: or tel:, or a path such as /politics.`
  if (!/^[a-z][a-z0-9+.-]*:/i.test(address) && !/^[/#?.]/.test(address) && /^[^/\s]+\.[a-z]{2,}(\/|$)/i.test(address)) {
    return `Start the address with https:// (as written it would link to a page of this site). Did you mean https://${address}?`
  }
  if (/\s/.test(address) && !/^(mailto|tel):/i.test(address)) return 'An address has no spaces.'
  return null
}
