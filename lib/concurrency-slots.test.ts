import { describe, expect, it } from 'vitest'
import { concurrencySlots } from './concurrency-slots.ts'
import { ServiceUnavailableError } from './errors.ts'
import { deferred } from '../tests/support/deferred.ts'

describe('concurrency slots', () => {
  it('lets waiting work in the order it came, and a failed one gives its slot back', async () => {
    const slots = concurrencySlots('test: order', { limit: () => 1, maxWaiting: 10, busy: (inUse) => `${inUse} busy` })
    const started: number[] = []
    const first = deferred()
    const running = slots.run(async () => {
      started.push(0)
      await first.promise
      throw new Error('the first one fails')
    })
    const later = [1, 2, 3].map((index) => slots.run(async () => void started.push(index)))
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([0])
    first.resolve()
    await expect(running).rejects.toThrow('the first one fails')
    await Promise.all(later)
    expect(started).toEqual([0, 1, 2, 3])
    expect(await slots.run(async () => 'free again')).toBe('free again')
  })

  it('refuses past maxWaiting with a 503 that says how busy the instance is', async () => {
    const slots = concurrencySlots('test: refusal', { limit: () => 2, maxWaiting: 1, busy: (inUse) => `${inUse} searches in flight` })
    const hold = deferred()
    const held = [0, 1, 2].map(() => slots.run(() => hold.promise))
    const refused = slots.run(async () => 'never')
    await expect(refused).rejects.toBeInstanceOf(ServiceUnavailableError)
    await expect(refused).rejects.toThrow('3 searches in flight')
    hold.resolve()
    await Promise.all(held)
  })

  it('forgets a waiter whose client left: it takes no place in the line, and never gets a slot', async () => {
    const slots = concurrencySlots('test: abandoned', { limit: () => 1, maxWaiting: 1, busy: (inUse) => `${inUse} busy` })
    const hold = deferred()
    const holder = slots.run(() => hold.promise)
    const leaving = new AbortController()
    let ranForGone = false
    const gone = slots.run(async () => void (ranForGone = true), leaving.signal)
    leaving.abort()
    await expect(gone).rejects.toMatchObject({ code: 'request_aborted' })
    // The line is empty again: the next caller waits instead of being refused as if it were full.
    const next = slots.run(async () => 'served')
    hold.resolve()
    await holder
    expect(await next).toBe('served')
    expect(ranForGone).toBe(false)
    // And the slot count came back right: two in a row each get the one slot.
    expect(await Promise.all([slots.run(async () => 1), slots.run(async () => 2)])).toEqual([1, 2])
  })
})
