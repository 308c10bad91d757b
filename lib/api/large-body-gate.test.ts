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

describe('the large-body line', () => {
  it('refuses a request whose turn did not come within MEDIA_UPLOAD_IDLE_MS with 503, saying the instance is busy with large uploads', async () => {
    vi.stubEnv('LARGE_BODY_CONCURRENCY', '1')
    vi.stubEnv('MEDIA_UPLOAD_IDLE_MS', '200')
    try {
      const holder = deferred()
      const holding = withLargeBodySlot(() => holder.promise)
      const waited = withLargeBodySlot(async () => 'never')
      await expect(waited).rejects.toBeInstanceOf(ServiceUnavailableError)
      await expect(waited).rejects.toMatchObject({ status: 503, retryAfterSeconds: 5, message: expect.stringMatching(/busy with large uploads.*within 0\.2 s/) })
      holder.resolve()
      await holding
      // The refused waiter left no place behind: the next one runs at once.
      expect(await withLargeBodySlot(async () => 'after')).toBe('after')
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('takes back its slot after stepping out however long that waits: a request let in is never refused', async () => {
    vi.stubEnv('LARGE_BODY_CONCURRENCY', '1')
    vi.stubEnv('MEDIA_UPLOAD_IDLE_MS', '50')
    try {
      const upload = deferred()
      let uploading: Promise<unknown> | undefined
      const importing = withLargeBodySlot(async () => {
        await outsideLargeBodySlot(async () => {
          uploading = withLargeBodySlot(() => upload.promise)
          await new Promise((resolve) => setImmediate(resolve))
        })
        return 'imported'
      })
      await new Promise((resolve) => setTimeout(resolve, 150))
      upload.resolve()
      expect(await importing).toBe('imported')
      await uploading
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('lets one client hold LARGE_BODY_PER_CLIENT slots and places at once, refusing its next with 429, not the others’', async () => {
    vi.stubEnv('LARGE_BODY_CONCURRENCY', '1')
    vi.stubEnv('LARGE_BODY_PER_CLIENT', '2')
    try {
      const release = deferred()
      const mine = [withLargeBodySlot(() => release.promise, undefined, 'token:a'), withLargeBodySlot(() => release.promise, undefined, 'token:a')]
      const third = withLargeBodySlot(async () => 'never', undefined, 'token:a')
      await expect(third).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 2, message: expect.stringContaining('LARGE_BODY_PER_CLIENT=2') })
      // Another client still gets in line.
      const theirs = withLargeBodySlot(async () => 'theirs', undefined, 'member:b')
      release.resolve()
      await Promise.all(mine)
      expect(await theirs).toBe('theirs')
      // Answered, the first client's count is back to nothing.
      expect(await Promise.all([withLargeBodySlot(async () => 1, undefined, 'token:a'), withLargeBodySlot(async () => 2, undefined, 'token:a')])).toEqual([1, 2])

      vi.stubEnv('LARGE_BODY_PER_CLIENT', undefined)
      const eight = deferred()
      const many = Array.from({ length: 8 }, () => withLargeBodySlot(() => eight.promise, undefined, 'member:c'))
      await expect(withLargeBodySlot(async () => 'never', undefined, 'member:c')).rejects.toMatchObject({ status: 429, message: expect.stringContaining('LARGE_BODY_PER_CLIENT=8') })
      eight.resolve()
      await Promise.all(many)

      vi.stubEnv('LARGE_BODY_PER_CLIENT', '1')
      const held = deferred()
      const one = withLargeBodySlot(() => held.promise, undefined, 'token:a')
      await expect(withLargeBodySlot(async () => 'never', undefined, 'token:a')).rejects.toMatchObject({ status: 429 })
      held.resolve()
      await one
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
