import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatLocalInstant, formatUtcInstant, isoToLocalDate, isoToLocalInput, localDayStartIso, localInputToIso, localTimeZone } from './local-datetime.ts'

// Node reads TZ again when it changes, so these run as a browser in New York would.
const previousTz = process.env.TZ
beforeAll(() => {
  process.env.TZ = 'America/New_York'
})
afterAll(() => {
  process.env.TZ = previousTz
})

describe('local wall time to UTC and back', () => {
  it('reads a datetime-local value in the local zone, winter and summer', () => {
    expect(localTimeZone()).toBe('America/New_York')
    expect(localInputToIso('2030-01-15T09:30')).toBe('2030-01-15T14:30:00.000Z')
    expect(localInputToIso('2030-07-15T09:30')).toBe('2030-07-15T13:30:00.000Z')
    expect(isoToLocalInput('2030-01-15T14:30:00.000Z')).toBe('2030-01-15T09:30')
    expect(isoToLocalInput('2030-07-15T13:30:00.000Z')).toBe('2030-07-15T09:30')
  })

  it('moves a wall time skipped by daylight saving forward, as the clock does', () => {
    // 2030-03-10 02:30 does not exist in New York: clocks jump from 02:00 to 03:00 EDT.
    expect(localInputToIso('2030-03-10T02:30')).toBe('2030-03-10T07:30:00.000Z')
  })

  it('refuses incomplete and impossible values', () => {
    expect(localInputToIso('')).toBeNull()
    expect(localInputToIso('2030-01-15')).toBeNull()
    expect(localInputToIso('2030-02-31T10:00')).toBeNull()
    expect(localInputToIso('2030-01-15T09:30Z')).toBeNull()
  })

  it('turns a date range into instants: from local midnight to the next local midnight', () => {
    expect(localDayStartIso('2030-01-15')).toBe('2030-01-15T05:00:00.000Z')
    expect(localDayStartIso('2030-01-15', 1)).toBe('2030-01-16T05:00:00.000Z')
    expect(isoToLocalDate('2030-01-15T05:00:00.000Z')).toBe('2030-01-15')
    expect(isoToLocalDate('2030-01-16T05:00:00.000Z', -1)).toBe('2030-01-15')
    expect(localDayStartIso('2030-13-01')).toBeNull()
  })

  it('shows an instant with the local zone name', () => {
    expect(formatLocalInstant('2030-01-15T14:30:00.000Z', 'en-US')).toBe('Jan 15, 2030, 9:30 AM EST')
    expect(formatLocalInstant('2030-07-15T13:30:00.000Z', 'en-US')).toBe('Jul 15, 2030, 9:30 AM EDT')
    expect(formatUtcInstant('2030-07-15T13:30:00.000Z', 'en-US')).toBe('Jul 15, 2030, 1:30 PM UTC')
    // Logs (requests, deliveries, the audit trail) show seconds, in the same format.
    expect(formatLocalInstant('2030-01-15T14:30:07.000Z', 'en-US', { seconds: true })).toBe('Jan 15, 2030, 9:30:07 AM EST')
    expect(formatUtcInstant('2030-01-15T14:30:07.000Z', 'en-US', { seconds: true })).toBe('Jan 15, 2030, 2:30:07 PM UTC')
  })
})
