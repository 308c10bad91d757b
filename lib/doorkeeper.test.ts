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
