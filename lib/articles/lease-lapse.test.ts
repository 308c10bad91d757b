import { describe, expect, it } from 'vitest'
import { changedAfterClaimEnded, leaseBeganAfterClaimEnded } from './lease-lapse.ts'

// As PostgreSQL writes them in the watch's JSON, and as the lease's answers carry them.
const claimEndsAt = '2026-12-01T03:00:00.000+00:00'

describe('whether a colleague came after this page lost its claim by lapsing', () => {
  it('judges a save by the server’s time of it, whatever the browser’s clock says', () => {
    const savedBefore = { at: '2026-12-01T02:59:00.123+00:00' }
    const savedAfter = { at: '2026-12-01T03:01:00+00:00' }
    // A browser clock 10 minutes fast, or 10 minutes slow.
    const fast = Date.parse(claimEndsAt) + 10 * 60_000
    const slow = Date.parse(claimEndsAt) - 10 * 60_000
    expect(changedAfterClaimEnded(savedBefore, claimEndsAt, fast)).toBe(false)
    expect(changedAfterClaimEnded(savedAfter, claimEndsAt, slow)).toBe(true)
  })

  it('falls back to the browser’s clock only for a change recorded without a time', () => {
    expect(changedAfterClaimEnded({ at: null }, claimEndsAt, Date.parse(claimEndsAt) + 1)).toBe(true)
    expect(changedAfterClaimEnded(null, claimEndsAt, Date.parse(claimEndsAt) - 1)).toBe(false)
  })

  it('judges a colleague’s lease by when it began', () => {
    expect(leaseBeganAfterClaimEnded({ since: '2026-12-01T03:00:00+00:00', taken_over_from_id: null }, claimEndsAt, 'usr_editor')).toBe(true)
    expect(leaseBeganAfterClaimEnded({ since: '2026-12-01T02:58:00+00:00', taken_over_from_id: null }, claimEndsAt, 'usr_editor')).toBe(false)
  })

  it('never calls a take-over of the editor’s live lease a lapse, though this page’s own claim had ended (their other window kept it, break72)', () => {
    expect(leaseBeganAfterClaimEnded({ since: '2026-12-01T03:05:00+00:00', taken_over_from_id: 'usr_editor' }, claimEndsAt, 'usr_editor')).toBe(false)
    // Taken from someone who found it free after this page's claim lapsed: still a lapse for this page.
    expect(leaseBeganAfterClaimEnded({ since: '2026-12-01T03:05:00+00:00', taken_over_from_id: 'usr_other' }, claimEndsAt, 'usr_editor')).toBe(true)
  })
})
