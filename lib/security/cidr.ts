// Address ranges for API key allowlists. Pure TypeScript (no node:net): the portal's form
// validates with the same parser the /v1 door matches with, so both say the same.

export type AddressRange = { version: 4 | 6; network: bigint; prefix: number }

function parseIPv4(text: string): bigint | null {
  const parts = text.split('.')
  if (parts.length !== 4) return null
  let value = 0n
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith('0'))) return null
    const octet = Number(part)
    if (octet > 255) return null
    value = (value << 8n) | BigInt(octet)
  }
  return value
}

function parseIPv6(text: string): bigint | null {
  let head = text
  let tailV4: bigint | null = null
  // An embedded IPv4 tail (::ffff:192.0.2.1) counts as the last two groups.
  const lastColon = text.lastIndexOf(':')
  if (text.includes('.')) {
    tailV4 = parseIPv4(text.slice(lastColon + 1))
    if (tailV4 === null) return null
    head = text.slice(0, lastColon + 1) + '0:0'
  }
  const halves = head.split('::')
  if (halves.length > 2) return null
  const groups = (half: string) => (half === '' ? [] : half.split(':'))
  const left = groups(halves[0]!)
  const right = halves.length === 2 ? groups(halves[1]!) : []
  const missing = 8 - left.length - right.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  let value = 0n
  for (const group of [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right]) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null
    value = (value << 16n) | BigInt(parseInt(group, 16))
  }
  if (tailV4 !== null) value = (value & ~0xffffffffn) | tailV4
  return value
}

/** An address as a number and its family, or null when it is neither IPv4 nor IPv6. */
export function parseAddress(text: string): { version: 4 | 6; value: bigint } | null {
  const trimmed = text.trim()
  // Zone ids (fe80::1%eth0) name an interface of the receiving host; they are not part of the address.
  const address = trimmed.includes(':') ? trimmed.replace(/%.*$/, '') : trimmed
  if (address.includes(':')) {
    const value = parseIPv6(address)
    if (value === null) return null
    // An IPv4 client seen through a dual-stack socket (::ffff:203.0.113.7) is that IPv4 address.
    if (value >> 32n === 0xffffn) return { version: 4, value: value & 0xffffffffn }
    return { version: 6, value }
  }
  const value = parseIPv4(address)
  return value === null ? null : { version: 4, value }
}

/**
 * A CIDR ("203.0.113.0/24", "2001:db8::/32") or a single address (a /32 or /128), or the reason
 * it is not one. Host bits set below the prefix are refused: "10.0.0.1/8" is usually a typo for
 * one address or for "10.0.0.0/8", and guessing which would widen or narrow the allowlist.
 */
export function parseRange(text: string): AddressRange | { error: string } {
  const [addressPart, prefixPart, extra] = text.trim().split('/')
  if (extra !== undefined || !addressPart) return { error: `“${text}” is not an address or a CIDR range such as 203.0.113.0/24.` }
  const address = parseAddress(addressPart)
  if (!address || (addressPart.includes(':') && address.version === 4 && prefixPart !== undefined)) {
    return { error: `“${text}” is not an IPv4 or IPv6 address or CIDR range.` }
  }
  const bits = address.version === 4 ? 32 : 128
  if (prefixPart !== undefined && !/^\d{1,3}$/.test(prefixPart)) return { error: `The prefix of “${text}” must be a number from 0 to ${bits}.` }
  const prefix = prefixPart === undefined ? bits : Number(prefixPart)
  if (prefix > bits) return { error: `The prefix of “${text}” must be a number from 0 to ${bits}.` }
  const hostBits = (1n << BigInt(bits - prefix)) - 1n
  if ((address.value & hostBits) !== 0n) {
    return { error: `“${text}” has bits set after its /${prefix} prefix; did you mean ${formatNetwork(address.version, address.value & ~hostBits)}/${prefix}?` }
  }
  return { version: address.version, network: address.value, prefix }
}

function formatNetwork(version: 4 | 6, value: bigint): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.')
  const groups = Array.from({ length: 8 }, (_, index) => ((value >> BigInt(112 - index * 16)) & 0xffffn).toString(16))
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::')
}

export function rangeContains(range: AddressRange, address: { version: 4 | 6; value: bigint }): boolean {
  if (range.version !== address.version) return false
  const bits = range.version === 4 ? 32 : 128
  const shift = BigInt(bits - range.prefix)
  return address.value >> shift === range.network >> shift
}

/** Whether the address text falls in any of the ranges; an unparsable address (e.g. "unknown") is in none. */
export function addressAllowed(ranges: readonly AddressRange[], addressText: string): boolean {
  const address = parseAddress(addressText)
  return address !== null && ranges.some((range) => rangeContains(range, address))
}

/**
 * The address as people write it: an IPv4 client seen through a dual-stack socket
 * (::ffff:203.0.113.7) is named 203.0.113.7, the form an allowlist entry for it takes.
 */
export function displayAddress(addressText: string): string {
  const address = parseAddress(addressText)
  if (!address || address.version === 6 || !addressText.includes(':')) return addressText
  return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 255n)).join('.')
}
