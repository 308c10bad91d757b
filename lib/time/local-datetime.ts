// The portal shows and takes times in the reader's own time zone (the browser's) and stores
// instants in UTC. These helpers are the only place the two meet; they run in the browser,
// where a date-time without an offset is read as local time (ECMAScript Date parsing).

const localInputPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/
const localDatePattern = /^(\d{4})-(\d{2})-(\d{2})$/

const pad = (value: number) => String(value).padStart(2, '0')

function isoOrNull(date: Date): string | null {
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}

/**
 * The UTC instant of a datetime-local value (`2030-01-15T09:30`) read in the local zone, as
 * ISO 8601 with `Z`; null when the value is not a complete date and time. A wall time that
 * does not exist (skipped by a daylight-saving change) moves forward, as the clock does.
 */
export function localInputToIso(value: string): string | null {
  const match = localInputPattern.exec(value)
  if (!match) return null
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number]
  const date = new Date(y, mo - 1, d, h, mi, Number.isNaN(s) ? 0 : s)
  // Date rolls 2030-02-31 over to March; such a value was never a real date.
  if (date.getMonth() !== mo - 1 || date.getDate() !== d) return null
  return isoOrNull(date)
}

/** An instant as a datetime-local value in the local zone (minutes precision). */
export function isoToLocalInput(iso: string): string {
  const date = new Date(iso)
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** The instant local midnight starts the day of a date input (`2030-01-15`), `addDays` later. */
export function localDayStartIso(value: string, addDays = 0): string | null {
  const match = localDatePattern.exec(value)
  if (!match) return null
  const [, y, mo, d] = match.map(Number) as [number, number, number, number]
  const day = new Date(y, mo - 1, d)
  if (day.getMonth() !== mo - 1 || day.getDate() !== d) return null
  return isoOrNull(new Date(y, mo - 1, d + addDays))
}

/** The local calendar date (`2030-01-15`) an instant falls on; `offsetMs` shifts the instant first. */
export function isoToLocalDate(iso: string, offsetMs = 0): string | null {
  const date = new Date(new Date(iso).getTime() + offsetMs)
  if (Number.isNaN(date.getTime())) return null
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** The browser's IANA time zone, e.g. `America/New_York`. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

// dateStyle cannot be combined with timeZoneName, so the parts are spelt out.
const instantParts: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }

/** An instant for people: date and time in the local zone, with the zone's short name. */
export function formatLocalInstant(iso: string, locale?: string, options: { seconds?: boolean } = {}): string {
  return new Intl.DateTimeFormat(locale, { ...instantParts, ...(options.seconds && { second: '2-digit' }) }).format(new Date(iso))
}

/** The same instant in UTC: beside a time picker, and wherever no reader's zone is known (the server). */
export function formatUtcInstant(iso: string, locale?: string, options: { seconds?: boolean } = {}): string {
  return new Intl.DateTimeFormat(locale, { ...instantParts, ...(options.seconds && { second: '2-digit' }), timeZone: 'UTC' }).format(new Date(iso))
}
