import { describe, expect, it, vi } from 'vitest'
import { ServiceUnavailableError } from '../errors.ts'
import { outsideLargeBodySlot, withLargeBodySlot } from './large-body-gate.ts'
import { deferred } from '../../tests/support/deferred.ts'

describe('the large-body gate', () => {
  it('runs two large requests at a time, the next as one finishes, and refuses past 32 waiting', async () => {
    let inFlight = 0
    let mostInFlight = 0
    const releases = Array.from({ length: 34 }, deferred)
    const work = (index: number) => async () => {
      inFlight++
      mostInFlight = Math.max(mostInFlight, inFlight)
      await releases[index]!.promise
      inFlight--
      return index
    }
    const answers = releases.map((_, index) => withLargeBodySlot(work(index)))
    const refused = withLargeBodySlot(async () => 'never')
    await expect(refused).rejects.toBeInstanceOf(ServiceUnavailableError)
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 2 })

    await new Promise((resolve) => setImmediate(resolve))
    expect(inFlight).toBe(2)
    releases[0]!.resolve()
    expect(await answers[0]).toBe(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(inFlight).toBe(2)

    releases.forEach((release) => release.resolve())
    expect(await Promise.all(answers)).toEqual(releases.map((_, index) => index))
    expect(mostInFlight).toBe(2)
    // Every slot was given back: the next one runs at once.
    expect(await withLargeBodySlot(async () => 'after')).toBe('after')
  })
})

describe('stepping out of the large-body gate', () => {
  it('gives the slot to the next large request while the work waits on others, and takes it back before going on', async () => {
    vi.stubEnv('LARGE_BODY_CONCURRENCY', '1')
    try {
      const order: string[] = []
      const remote = deferred()
      const importing = withLargeBodySlot(async () => {
        order.push('import parsed')
        await outsideLargeBodySlot(async () => {
          order.push('import fetching')
          await remote.promise
        })
        order.push('import writing')
      })
      await new Promise((resolve) => setImmediate(resolve))
      // The only slot is free while the import fetches: an upload runs now.
      await withLargeBodySlot(async () => void order.push('upload'))
      expect(order).toEqual(['import parsed', 'import fetching', 'upload'])

      // An upload arriving as the fetches end holds the slot: the import's writes wait for it.
      const uploadDone = deferred()
      const upload = withLargeBodySlot(async () => {
        order.push('second upload')
        await uploadDone.promise
      })
      await new Promise((resolve) => setImmediate(resolve))
      remote.resolve()
      await new Promise((resolve) => setImmediate(resolve))
      expect(order.at(-1)).toBe('second upload')
      uploadDone.resolve()
      await Promise.all([importing, upload])
      expect(order).toEqual(['import parsed', 'import fetching', 'upload', 'second upload', 'import writing'])
      // Every slot was given back.
      expect(await withLargeBodySlot(async () => 'after')).toBe('after')
      expect(await outsideLargeBodySlot(async () => 'outside any slot')).toBe('outside any slot')
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
