import { describe, expect, it } from 'vitest'
import { ServiceUnavailableError } from '../errors.ts'
import { withLargeBodySlot } from './large-body-gate.ts'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

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
