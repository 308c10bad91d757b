import { describe, expect, it } from 'vitest'
import { seedHeadline } from './development-seed.ts'

describe('the development seed', () => {
  it('never gives two articles the same headline (the largest newsroom has 30)', () => {
    const headlines = Array.from({ length: 64 }, (_, i) => seedHeadline(i))
    expect(new Set(headlines.slice(0, 30)).size).toBe(30)
    expect(new Set(headlines).size).toBe(64)
  })
})
