import { afterEach, describe, expect, it, vi } from 'vitest'
import { withLargeBodySlot } from '../../lib/api/large-body-gate.ts'

// break70: positive() (lib/config/positive-setting.ts) promises that a setting that is not a positive
// number means its default, because a limit of 0 "refused every upload at once or parked every
// one". A fraction below 1 passes its check (0.5 > 0) and is then floored to 0: with
// LARGE_BODY_PER_CLIENT=0.5 every client is refused 429 ('already has 0 large requests'), and
// with LARGE_BODY_CONCURRENCY=0.5 nothing is ever let in (every upload waits its bound, then 503).
afterEach(() => vi.unstubAllEnvs())

describe('a large-body setting below 1 (0.5)', () => {
  it('LARGE_BODY_PER_CLIENT=0.5: a client with nothing in flight is let in', async () => {
    vi.stubEnv('LARGE_BODY_PER_CLIENT', '0.5')
    await expect(withLargeBodySlot(async () => 'stored', undefined, 'member:lone')).resolves.toBe('stored')
  })

  it('LARGE_BODY_CONCURRENCY=0.5: a lone upload runs, not parked until its wait runs out', async () => {
    vi.stubEnv('LARGE_BODY_CONCURRENCY', '0.5')
    vi.stubEnv('MEDIA_UPLOAD_IDLE_MS', '300')
    await expect(withLargeBodySlot(async () => 'stored', undefined, 'member:lone')).resolves.toBe('stored')
  })
})
