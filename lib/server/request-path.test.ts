import { describe, expect, it } from 'vitest'
import { hasDecodablePath } from './request-path.ts'

describe('hasDecodablePath', () => {
  it('refuses a path whose percent-escapes are not UTF-8, and judges the path only, not the query', () => {
    for (const target of ['/articles/%FF', '/articles/%ED%A0%80', '/articles/100%', '/a/%E2%82', '/a/%ZZ']) expect(hasDecodablePath(target), target).toBe(false)
    for (const target of ['/', '/articles/art_1', '/articles/%C3%A9t%C3%A9', '/a/%25', '/articles?q=%FF', '/articles?q=100%']) expect(hasDecodablePath(target), target).toBe(true)
  })
})
