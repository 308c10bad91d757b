import dns from 'node:dns'
import net from 'node:net'

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void
type Lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void

const isLoopback = (address: string) => /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address)

function refusal(host: string, address: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`connect ECONNREFUSED ${address} (${host}): tests never connect off this machine (tests/support/no-outbound-connections.ts)`), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address })
}

/**
 * Refuses, in this process, every TCP connection to an address other than loopback, as a closed
 * port would (ECONNREFUSED): for tests that resolve made-up host names to a public address so the
 * SSRF rules let them through (a webhook to hooks.example.com, a source_url, a test event sent
 * now), which would otherwise open real connections off the machine. The rules still judge the
 * public address; only the socket is stopped, after the lookup the socket itself makes (so a
 * name checked as public and then resolved otherwise is judged by what it connects to).
 * Returns the undo and the list of what was refused.
 */
export function refuseConnectionsOffTheMachine(): { restore: () => void; refused: string[] } {
  const refused: string[] = []
  const original = net.Socket.prototype.connect
  const guarded = function (this: net.Socket, ...args: unknown[]) {
    // net.connect passes its normalised arguments as one array; a direct call passes them as they came.
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]
    const options = (typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined }) as net.TcpSocketConnectOpts & { path?: string }
    if (options.path) return (original as (...rest: unknown[]) => net.Socket).apply(this, args)
    const host = options.host ?? 'localhost'
    if (net.isIP(host)) {
      if (!isLoopback(host)) {
        refused.push(host)
        process.nextTick(() => this.destroy(refusal(host, host)))
        return this
      }
    } else if (typeof first === 'object' && first !== null) {
      const lookup: Lookup = (options.lookup as Lookup | undefined) ?? (dns.lookup as unknown as Lookup)
      ;(first as net.TcpSocketConnectOpts).lookup = ((hostname: string, lookupOptions: dns.LookupOptions, callback: LookupCallback) =>
        lookup(hostname, lookupOptions, (error, address, family) => {
          if (error) return callback(error, address, family)
          const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address]
          const outside = addresses.find((entry) => !isLoopback(entry))
          if (outside) {
            refused.push(`${hostname} → ${outside}`)
            return callback(refusal(hostname, outside), '', 4)
          }
          callback(null, address, family)
        })) as net.TcpSocketConnectOpts['lookup']
    }
    return (original as (...rest: unknown[]) => net.Socket).apply(this, args)
  }
  net.Socket.prototype.connect = guarded as typeof net.Socket.prototype.connect
  return { restore: () => void (net.Socket.prototype.connect = original), refused }
}
