import { afterEach, describe, expect, it, vi } from 'vitest'
import { FetchTurnTimeoutError, withFetchSlot } from './fetch-gate.ts'
import { deferred } from '../../tests/support/deferred.ts'

afterEach(() => void vi.unstubAllEnvs())

describe('the instance’s fetch gate', () => {
  it('runs MEDIA_FETCH_CONCURRENCY fetches at once; the next waits its turn, and gives up at its deadline without taking a slot', async () => {
    vi.stubEnv('MEDIA_FETCH_CONCURRENCY', '1')
    const remote = deferred()
    const first = withFetchSlot(Date.now() + 60_000, async () => {
      await remote.promise
      return 'first'
    })
    const late = withFetchSlot(Date.now() + 50, async () => 'never runs')
    const next = withFetchSlot(Date.now() + 60_000, async () => 'next')
    await expect(late).rejects.toBeInstanceOf(FetchTurnTimeoutError)
    remote.resolve()
    expect(await Promise.all([first, next])).toEqual(['first', 'next'])
    // A deadline already past never runs; every slot was given back.
    await expect(withFetchSlot(Date.now() - 1, async () => 'never')).rejects.toBeInstanceOf(FetchTurnTimeoutError)
    expect(await withFetchSlot(Date.now() + 1_000, async () => 'after')).toBe('after')
  })

  it('a deadline weeks away (an operator turning the deadline off) still waits its turn, not 1 ms', async () => {
    vi.stubEnv('MEDIA_FETCH_CONCURRENCY', '1')
    const remote = deferred()
    const first = withFetchSlot(Date.now() + 60_000, () => remote.promise)
    const patient = withFetchSlot(Date.now() + 30 * 24 * 60 * 60 * 1000, async () => 'waited')
    await new Promise((resolve) => setTimeout(resolve, 50))
    remote.resolve()
    await first
    expect(await patient).toBe('waited')
  })
})
