import { describe, expect, it } from 'vitest'
import { negotiateFormat } from './renditions.ts'

describe('negotiateFormat (Accept with q-values)', () => {
  it.each([
    [null, 'jpeg'],
    ['', 'jpeg'],
    ['*/*', 'jpeg'],
    ['image/*', 'jpeg'],
    ['image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8', 'avif'],
    ['image/avif;q=0, image/webp, */*', 'webp'],
    ['image/avif;q=0.5, image/webp;q=0.9', 'webp'],
    ['image/webp;q=0, image/avif;q=0, */*', 'jpeg'],
    ['image/jpeg, image/webp;q=0.5', 'jpeg'],
    ['IMAGE/WEBP', 'webp'],
    ['image/avif;q=abc, image/webp;q=0.1', 'webp'],
    ['image/jpeg;q=0', 'jpeg'],
  ])('%s → %s', (accept, format) => {
    expect(negotiateFormat(accept)).toBe(format)
  })
})
