import { describe, expect, it } from 'vitest'
import { networkErrorText } from './network-error-text.ts'
import { UnsafeUrlError } from './url-safety.ts'

const target = { host: 'hooks.example.com', port: '443' }
const failure = (code: string, message = `raw ${code}`, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code, ...extra })

describe('networkErrorText', () => {
  it('words connection and TLS failures for a person, naming the host', () => {
    expect(networkErrorText(failure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9', { address: '127.0.0.1', port: 9 }), { host: 'localhost', port: '9' })).toBe('Connection refused by 127.0.0.1:9.')
    expect(networkErrorText(failure('ENOTFOUND'), target)).toBe('The host name hooks.example.com could not be found (DNS).')
    expect(networkErrorText(failure('CERT_HAS_EXPIRED'), target)).toBe('TLS certificate expired (hooks.example.com).')
    expect(networkErrorText(failure('DEPTH_ZERO_SELF_SIGNED_CERT'), target)).toBe('TLS certificate is self-signed, so it is not trusted (hooks.example.com).')
    expect(networkErrorText(failure('ERR_TLS_CERT_ALTNAME_INVALID'), target)).toBe('TLS certificate is not valid for hooks.example.com (it names other hosts).')
    expect(networkErrorText(failure('ECONNRESET'), target)).toBe('The connection to hooks.example.com:443 was closed before a complete response arrived.')
    for (const text of [networkErrorText(failure('ECONNREFUSED'), target), networkErrorText(failure('CERT_HAS_EXPIRED'), target)]) expect(text).not.toMatch(/raw|E[A-Z]{4,}/)
  })

  it('keeps our own refusal as written, and leads an unknown failure in with where it happened', () => {
    expect(networkErrorText(new UnsafeUrlError('Refused: x resolves to a private address (10.0.0.1).'), target)).toBe('Refused: x resolves to a private address (10.0.0.1).')
    expect(networkErrorText(failure('EWEIRD', 'something odd'), target)).toBe('The request to hooks.example.com:443 failed: something odd')
  })
})
