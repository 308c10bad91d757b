import { describe, expect, it } from 'vitest'
import { Doorkeeper } from './doorkeeper.ts'

describe('the doorkeeper', () => {
  it('says a key was asked before from its second asking', () => {
    const door = new Doorkeeper(3)
    expect(door.askedBefore('a')).toBe(false)
    expect(door.askedBefore('a')).toBe(true)
    expect(door.askedBefore('a')).toBe(true)
  })

  it('remembers at least the last generation of keys, and forgets what came two generations before', () => {
    const door = new Doorkeeper(3)
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) door.askedBefore(key)
    // The last three (and up to three before them) are remembered.
    expect(['d', 'e', 'f'].map((key) => door.askedBefore(key))).toEqual([true, true, true])
    for (const key of ['g', 'h', 'i', 'j']) door.askedBefore(key)
    // 'a' was dropped with the older set long ago: asked again, it is new.
    expect(door.askedBefore('a')).toBe(false)
  })

  it('forgets everything when cleared', () => {
    const door = new Doorkeeper(3)
    door.askedBefore('a')
    door.clear()
    expect(door.askedBefore('a')).toBe(false)
  })
})

describe('the doorkeeper at a cache\'s size', () => {
  it('remembers every one of a generation of article keys, and takes next to none of 100,000 new ones for asked', () => {
    const door = new Doorkeeper(4_000)
    const keyOf = (n: number) => `art_${String(n).padStart(20, '0')}`
    for (let n = 0; n < 4_000; n++) expect(door.askedBefore(keyOf(n))).toBe(false)
    expect(Array.from({ length: 4_000 }, (_, n) => door.askedBefore(keyOf(n))).every(Boolean)).toBe(true)
    // New keys, a generation switch every 4,000 of them: a fingerprint shared by two keys
    // (about 1 in 2^32 / 8,000 askings) is the only way one is taken for asked.
    let takenForAsked = 0
    for (let n = 1_000_000; n < 1_100_000; n++) if (door.askedBefore(keyOf(n))) takenForAsked++
    expect(takenForAsked).toBeLessThanOrEqual(2)
    // The first 4,000 are two generations back now: forgotten.
    expect(door.askedBefore(keyOf(0))).toBe(false)
  })
})
