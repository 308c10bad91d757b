import { describe, expect, it } from 'vitest'
import { expectedVersionFromIfMatch } from './resource-headers.ts'

describe('expectedVersionFromIfMatch', () => {
  it('pins nothing without the header or with *', () => {
    expect(expectedVersionFromIfMatch(null)).toBeUndefined()
    expect(expectedVersionFromIfMatch(' * ')).toBeUndefined()
  })

  it('reads the versions of strong ETags, and lets nothing else match (so the change is a 412)', () => {
    expect(expectedVersionFromIfMatch('"4"')).toEqual([4])
    expect(expectedVersionFromIfMatch('"4", "7"')).toEqual([4, 7])
    expect(expectedVersionFromIfMatch('W/"4"')).toEqual([])
    expect(expectedVersionFromIfMatch('"abc", ""')).toEqual([])
    expect(expectedVersionFromIfMatch(`"${'9'.repeat(30)}"`)).toEqual([])
  })
})
