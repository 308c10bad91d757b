import { afterEach, describe, expect, it, vi } from 'vitest'
import { clientAddress } from './client-address.ts'

afterEach(() => vi.unstubAllEnvs())

describe('clientAddress', () => {
  it('takes the peer the server recorded last, not what the client wrote before it', () => {
    expect(clientAddress('203.0.113.7, 198.51.100.2')).toBe('198.51.100.2')
    expect(clientAddress('198.51.100.2')).toBe('198.51.100.2')
  })

  it('behind TRUSTED_PROXY_HOPS proxies, takes the address the outermost one saw', () => {
    vi.stubEnv('TRUSTED_PROXY_HOPS', '1')
    expect(clientAddress('203.0.113.7, 192.0.2.10, 10.0.0.5')).toBe('192.0.2.10')
    vi.stubEnv('TRUSTED_PROXY_HOPS', '3')
    expect(clientAddress('192.0.2.10, 10.0.0.5')).toBe('192.0.2.10')
    expect(clientAddress(' 192.0.2.10 ')).toBe('192.0.2.10')
  })

  it('says unknown when there is nothing to go on', () => {
    expect(clientAddress(undefined)).toBe('unknown')
    expect(clientAddress(' , ')).toBe('unknown')
  })
})
