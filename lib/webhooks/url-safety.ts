import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'

// Webhook URLs are chosen by tenants, so the service must never become a way to reach its
// own network: loopback, private ranges, link-local (cloud metadata at 169.254.169.254,
// fd00:ec2::254) and the like are refused unless the operator allows them for development.

export type ResolvedAddress = { address: string; family: 4 | 6 }
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>

const blocked = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, also Alibaba's metadata address
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b::', 96], // NAT64 could reach private IPv4 space
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 embeds an arbitrary IPv4 address
  ['fc00::', 7], // unique local, includes fd00:ec2::254
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6')
}
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged by BlockList against the IPv4 rules above.

/** Whether an address is one a webhook must not reach (loopback, private, link-local, ...). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** Operators allow http and private addresses for development and tests only. */
export function privateUrlsAllowed(): boolean {
  return process.env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true'
}

const systemResolver: HostResolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true })
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))
}

let resolver: HostResolver = systemResolver

/** Replaces DNS resolution (tests simulate rebinding with it); `undefined` restores the system's. */
export function setHostResolver(next: HostResolver | undefined): void {
  resolver = next ?? systemResolver
}

export function resolveHost(hostname: string): Promise<ResolvedAddress[]> {
  return resolver(hostname)
}

/** The URL's host without IPv6 brackets, as resolvers and isIP expect it. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1')
}

export class UnsafeUrlError extends Error {}

/**
 * Checks a receiver URL when a subscription is created or changed: https (http only when
 * allowed), no credentials, and, unless allowed, a host whose every address is public.
 * Returns the reason it is refused, or null.
 */
export async function checkWebhookUrl(raw: string, allowPrivate = privateUrlsAllowed()): Promise<string | null> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'url must be an absolute URL such as https://example.com/webhooks.'
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate ? 'url must use https or http.' : 'url must use https.'
  }
  if (url.username || url.password) return 'url must not contain a user name or password; authenticate deliveries with the signature.'
  if (allowPrivate) return null
  const hostname = bareHostname(url)
  if (isIP(hostname)) return isPrivateAddress(hostname) ? `url points to a private, loopback or link-local address (${hostname}), which webhooks cannot reach.` : null
  let addresses: ResolvedAddress[]
  try {
    addresses = await resolveHost(hostname)
  } catch {
    return `The host ${hostname} could not be resolved; check the url.`
  }
  if (addresses.length === 0) return `The host ${hostname} has no addresses; check the url.`
  const unsafe = addresses.find((entry) => isPrivateAddress(entry.address))
  return unsafe ? `The host ${hostname} resolves to a private, loopback or link-local address (${unsafe.address}), which webhooks cannot reach.` : null
}

/**
 * A `lookup` for http(s).request that resolves the host, refuses it if any address is
 * private, and hands the socket exactly the addresses it checked, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot slip through.
 */
export function safeLookup(allowPrivate = privateUrlsAllowed()): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses
        const unsafe = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address))
        if (unsafe) {
          callback(new UnsafeUrlError(`Refused: ${hostname} resolves to a private, loopback or link-local address (${unsafe.address}).`), '', 4)
        } else if (wanted.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4)
        } else if (options.all) {
          ;(callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, wanted)
        } else {
          callback(null, wanted[0]!.address, wanted[0]!.family)
        }
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    )
  }
}
