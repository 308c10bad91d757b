import { describe, expect, it } from 'vitest'
import { addressAllowed, displayAddress, parseRange, type AddressRange } from './cidr.ts'

const ranges = (...texts: string[]) => texts.map((text) => parseRange(text) as AddressRange)

describe('address ranges', () => {
  it('matches IPv4 CIDRs and single addresses', () => {
    const allow = ranges('203.0.113.0/24', '198.51.100.7')
    expect(addressAllowed(allow, '203.0.113.200')).toBe(true)
    expect(addressAllowed(allow, '203.0.114.1')).toBe(false)
    expect(addressAllowed(allow, '198.51.100.7')).toBe(true)
    expect(addressAllowed(allow, '198.51.100.8')).toBe(false)
    expect(addressAllowed(ranges('0.0.0.0/0'), '8.8.8.8')).toBe(true)
  })

  it('matches IPv6 CIDRs, and IPv4 clients seen through a dual-stack socket', () => {
    const allow = ranges('2001:db8::/32', '127.0.0.1/32')
    expect(addressAllowed(allow, '2001:db8:ffff::1')).toBe(true)
    expect(addressAllowed(allow, '2001:db9::1')).toBe(false)
    expect(addressAllowed(allow, '::ffff:127.0.0.1')).toBe(true)
    expect(addressAllowed(ranges('::1'), '::1')).toBe(true)
    expect(addressAllowed(ranges('::1'), '127.0.0.1')).toBe(false)
    expect(addressAllowed(allow, 'unknown')).toBe(false)
    expect(displayAddress('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(displayAddress('2001:db8::1')).toBe('2001:db8::1')
    expect(displayAddress('unknown')).toBe('unknown')
  })

  it('refuses what is not a range, in words that say what to fix', () => {
    expect(parseRange('10.0.0.1/8')).toEqual({ error: '“10.0.0.1/8” has bits set after its /8 prefix; did you mean 10.0.0.0/8?' })
    expect(parseRange('2001:db8::1/32')).toMatchObject({ error: expect.stringContaining('did you mean 2001:db8::/32?') })
    expect(parseRange('300.1.1.1')).toMatchObject({ error: expect.stringContaining('not an IPv4 or IPv6') })
    expect(parseRange('10.0.0.0/33')).toMatchObject({ error: expect.stringContaining('0 to 32') })
    expect(parseRange('example.com')).toMatchObject({ error: expect.any(String) })
    expect(parseRange('1::2::3')).toMatchObject({ error: expect.any(String) })
  })
})
