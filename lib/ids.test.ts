import { describe, expect, it } from 'vitest'
import { createId } from './ids.ts'

describe('createId', () => {
  it('makes prefixed, url-safe, unique ids that sort by creation time', async () => {
    const first = createId('art')
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = createId('art')
    expect(first).toMatch(/^art_[0-9a-z]{25}$/)
    expect(first).not.toEqual(second)
    expect(first < second).toBe(true)
    const many = new Set(Array.from({ length: 10_000 }, () => createId('evt')))
    expect(many.size).toBe(10_000)
  })
})
