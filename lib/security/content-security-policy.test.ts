import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy, showsRemoteImages } from './content-security-policy.ts'

const imgSrc = (policy: string) => policy.split('; ').find((directive) => directive.startsWith('img-src'))

describe('the portal’s image policy', () => {
  it('lets only the article preview load a body’s https images; every other page keeps to this origin', () => {
    expect(showsRemoteImages('/articles/art_0mhx2k1s9q3v8w4t6y1z2a3b4c/preview')).toBe(true)
    for (const path of ['/articles/art_0mhx2k1s9q3v8w4t6y1z2a3b4c', '/articles', '/settings/webhooks', '/articles/x/preview/more', '/']) expect(showsRemoteImages(path)).toBe(false)
    expect(imgSrc(contentSecurityPolicy('n', { development: false, remoteImages: true }))).toBe(`img-src 'self' blob: data: https:`)
    expect(imgSrc(contentSecurityPolicy('n', { development: false }))).toBe(`img-src 'self' blob: data:`)
  })
})
