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
