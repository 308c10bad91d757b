import { describe, expect, it } from 'vitest'
import { isPortalRequest } from './same-origin.ts'

const request = (headers: Record<string, string>) => new Request('http://portal.example/api/trpc/apiKeys.create', { method: 'POST', headers: { host: 'portal.example', ...headers } })

describe('isPortalRequest', () => {
  it("accepts the portal's own requests, same-origin or without Origin", () => {
    expect(isPortalRequest(request({ 'x-newsroom-portal': '1', origin: 'http://portal.example' }))).toBe(true)
    expect(isPortalRequest(request({ 'x-newsroom-portal': '1' }))).toBe(true)
  })

  it('refuses a cross-site form (no header) and a foreign or malformed Origin', () => {
    expect(isPortalRequest(request({ origin: 'http://portal.example' }))).toBe(false)
    expect(isPortalRequest(request({ 'x-newsroom-portal': '1', origin: 'https://evil.example' }))).toBe(false)
    expect(isPortalRequest(request({ 'x-newsroom-portal': '1', origin: 'null' }))).toBe(false)
  })
})

describe('isPortalRequest behind no proxy', () => {
  it('ignores X-Forwarded-Host unless TRUSTED_PROXY_HOPS says a proxy sets it', () => {
    const forged = request({ 'x-newsroom-portal': '1', origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' })
    const previous = process.env.TRUSTED_PROXY_HOPS
    try {
      delete process.env.TRUSTED_PROXY_HOPS
      expect(isPortalRequest(forged)).toBe(false)
      process.env.TRUSTED_PROXY_HOPS = '0'
      expect(isPortalRequest(forged)).toBe(false)
      // Behind a proxy that names the host the browser asked for, its word counts.
      process.env.TRUSTED_PROXY_HOPS = '1'
      expect(isPortalRequest(request({ 'x-newsroom-portal': '1', origin: 'https://cms.example', 'x-forwarded-host': 'cms.example' }))).toBe(true)
    } finally {
      if (previous === undefined) delete process.env.TRUSTED_PROXY_HOPS
      else process.env.TRUSTED_PROXY_HOPS = previous
    }
  })
})
