/**
 * A person's reading of a User-Agent ("Firefox on macOS"), for the Security page's list of
 * sessions. A rough guess is enough to recognise one's own devices; the full string is shown on hover.
 */
export function describeUserAgent(userAgent: string): string {
  if (!userAgent) return 'Unknown device'
  const browser =
    /Edg\//.test(userAgent) ? 'Edge'
    : /OPR\/|Opera/.test(userAgent) ? 'Opera'
    : /Firefox\//.test(userAgent) ? 'Firefox'
    : /Chrome\/|Chromium\/|CriOS\//.test(userAgent) ? (/HeadlessChrome/.test(userAgent) ? 'Headless Chrome' : 'Chrome')
    : /Safari\//.test(userAgent) ? 'Safari'
    : /curl\//.test(userAgent) ? 'curl'
    : null
  const system =
    /iPhone|iPad|iPod/.test(userAgent) ? 'iOS'
    : /Android/.test(userAgent) ? 'Android'
    : /Windows/.test(userAgent) ? 'Windows'
    : /Mac OS X|Macintosh/.test(userAgent) ? 'macOS'
    : /CrOS/.test(userAgent) ? 'ChromeOS'
    : /Linux/.test(userAgent) ? 'Linux'
    : null
  if (browser && system) return `${browser} on ${system}`
  return browser ?? system ?? userAgent.slice(0, 40)
}
