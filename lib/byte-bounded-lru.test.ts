import { describe, expect, it } from 'vitest'
import { byteBoundedLru } from './byte-bounded-lru.ts'

const filled = (count: number) => {
  const lru = byteBoundedLru<number>()
  for (let i = 0; i < count; i++) lru.set(`k${i}`, i, 1, count)
  return lru
}

describe('the byte-bounded LRU the response cache, kept records and snippets share', () => {
  it('gives up exactly the least recently used when it holds a few entries', () => {
    const lru = filled(3)
    expect(lru.get('k0')).toBe(0)
    lru.set('k3', 3, 1, 3)
    expect(lru.get('k1')).toBeUndefined()
    expect([lru.get('k0'), lru.get('k2'), lru.get('k3')]).toEqual([0, 2, 3])
  })

  it('keeps the oldest entry once it is read, and gives up those nobody read since', () => {
    const lru = filled(100)
    expect(lru.get('k0')).toBe(0)
    for (let i = 100; i < 160; i++) lru.set(`k${i}`, i, 1, 100)
    expect(lru.get('k0')).toBe(0)
    expect(lru.get('k1')).toBeUndefined()
    expect(lru.get('k60')).toBeUndefined()
    expect(lru.get('k61')).toBe(61)
    expect(lru.bytes()).toBe(100)
  })

  it('never gives up an answer read between every two others kept, through ten times its size of churn', () => {
    const lru = filled(100)
    for (let i = 100; i < 1_100; i++) {
      lru.set(`k${i}`, i, 1, 100)
      expect(lru.get('k50')).toBe(50)
    }
  })

  it('gives up a once-hot entry when as many others as it holds were set after its last read', () => {
    const lru = filled(100)
    lru.set('hot', -1, 1, 100)
    expect(lru.get('hot')).toBe(-1)
    for (let i = 100; i < 199; i++) lru.set(`k${i}`, i, 1, 100)
    expect(lru.get('hot')).toBe(-1)
    for (let i = 199; i < 299; i++) lru.set(`k${i}`, i, 1, 100)
    expect(lru.get('hot')).toBeUndefined()
  })
})

describe('the LRU with a hot key among many', () => {
  it('keeps a value set again for the same key, counting its new size once', () => {
    const lru = filled(10)
    lru.set('k3', 33, 4, 20)
    expect(lru.get('k3')).toBe(33)
    expect(lru.bytes()).toBe(13)
    // Over budget now: the least recently used (k0, k1 …) go first, k3 (just read) stays.
    lru.set('big', 99, 10, 20)
    expect(lru.bytes()).toBeLessThanOrEqual(20)
    expect(lru.get('k0')).toBeUndefined()
    expect(lru.get('k3')).toBe(33)
    expect(lru.get('big')).toBe(99)
  })

  it('gives up everything else for an entry as large as the budget, and a clear empties it', () => {
    const lru = filled(10)
    lru.set('whole', 1, 10, 10)
    expect(lru.bytes()).toBe(10)
    expect(lru.get('k9')).toBeUndefined()
    lru.clear()
    expect(lru.get('whole')).toBeUndefined()
    expect(lru.bytes()).toBe(0)
    lru.set('again', 2, 1, 10)
    expect(lru.get('again')).toBe(2)
  })
})

describe('the budget the LRU is given (break72)', () => {
  it('never holds more bytes than its budget: a value larger than the whole budget is not kept, and the others stay', () => {
    const lru = filled(4)
    lru.set('huge', 99, 10, 4)
    expect(lru.bytes()).toBeLessThanOrEqual(4)
    expect(lru.get('huge')).toBeUndefined()
    expect([lru.get('k0'), lru.get('k1'), lru.get('k2'), lru.get('k3')]).toEqual([0, 1, 2, 3])
  })

  it('a key set again with a value too large to keep no longer answers with the old value', () => {
    const lru = filled(4)
    lru.set('k1', 100, 10, 4)
    expect(lru.get('k1')).toBeUndefined()
    expect(lru.bytes()).toBe(3)
  })

  it('keeps nothing with a budget of zero', () => {
    const lru = byteBoundedLru<number>()
    lru.set('a', 1, 1, 0)
    expect(lru.get('a')).toBeUndefined()
    expect(lru.bytes()).toBe(0)
  })
})
