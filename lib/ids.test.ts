import { describe, expect, it } from 'vitest'
import { createId, timeOfId } from './ids.ts'

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

describe('timeOfId', () => {
  it('reads back the millisecond an id was made, and nothing from what is not an id of that kind', () => {
    const at = Date.UTC(2026, 10, 25, 17, 3, 4, 567)
    expect(timeOfId(createId('req', at), 'req')).toBe(at)
    expect(timeOfId(createId('art', at), 'req')).toBeNull()
    expect(timeOfId('req_not-an-id', 'req')).toBeNull()
    expect(timeOfId(`${createId('req', at)}x`, 'req')).toBeNull()
  })
})
