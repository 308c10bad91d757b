/**
 * Whether a request's Host header names a host the way RFC 9110 allows (`uri-host [ ":" port ]`):
 * a name or IPv4 address, or an IPv6 address in brackets, with an optional port of 1–65535.
 * Anything else (`a b`, `[`, `%`, `x:99999`, an empty or missing Host) cannot be a base for the
 * request's URL, and is the client's to fix (RFC 9112 §3.2: a 400). A request without Host at
 * all (HTTP/1.0; Node refuses it in HTTP/1.1) is read as for `localhost`, by the callers.
 */
const hostShape = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=]+)(?::(\d{1,5}))?$/

export function isValidHostHeader(host: string): boolean {
  // Nearly every request names the host the one before it did: the last one found valid is
  // remembered, where the pattern and URL.canParse cost ~1 µs of a cached read's ~30 (issue 50).
  if (host === lastValidHost) return true
  const match = hostShape.exec(host)
  if (!match) return false
  if (match[1] !== undefined && (Number(match[1]) < 1 || Number(match[1]) > 65_535)) return false
  // What the listeners build the request URL from must accept it too (e.g. `[1::2::3]`).
  if (!URL.canParse(`http://${host}/`)) return false
  lastValidHost = host
  return true
}

let lastValidHost: string | undefined

export const invalidHostDetail =
  'The Host header is missing, empty or malformed: send a host name or address with an optional port of 1 to 65535, such as api.example.com or 127.0.0.1:3000.'
