import { describe, expect, it } from 'vitest'
import { toPage } from './pagination.ts'

describe('toPage', () => {
  it('keeps the counted total when the page agrees with it', () => {
    expect(toPage([1, 2], 10, { limit: 2, offset: 4 })).toMatchObject({ total: 10, nextOffset: 6 })
    expect(toPage([1, 2], 6, { limit: 2, offset: 4 })).toMatchObject({ total: 6, nextOffset: null })
  })

  it('never answers a total below the rows the page shows (a count read before a commit)', () => {
    expect(toPage([1, 2, 3], 2, { limit: 3, offset: 0 })).toMatchObject({ total: 3, nextOffset: null })
    expect(toPage([1, 2, 3], 2, { limit: 5, offset: 0 })).toMatchObject({ total: 3, nextOffset: null })
  })

  it('ends the list at a short page even when the count says more (a count read before a delete)', () => {
    expect(toPage([1], 9, { limit: 5, offset: 5 })).toMatchObject({ total: 6, nextOffset: null })
  })

  it('an empty page bounds the total by its offset', () => {
    expect(toPage([], 3, { limit: 5, offset: 0 })).toMatchObject({ total: 0, nextOffset: null })
    expect(toPage([], 50, { limit: 5, offset: 20 })).toMatchObject({ total: 20, nextOffset: null })
  })
})
