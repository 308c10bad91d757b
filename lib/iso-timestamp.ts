/**
 * `date.toISOString()`, made in JavaScript for dates from 1970 to 9999 (every other date, and an
 * invalid one, by toISOString itself): the same text, about three times as fast. Why: a list page's
 * records carry three or four timestamps each, and V8's toISOString for 150 of them was ~130 µs
 * of a cold 50-article page (~4 % of its CPU, issue 50's profile), as much as the rest of
 * building the records.
 */
export function isoTimestamp(date: Date): string {
  const ms = date.getTime()
  if (!(ms >= 0 && ms <= lastFastMs)) return date.toISOString()
  const days = Math.floor(ms / dayMs)
  let rest = ms - days * dayMs
  // The civil date of a day number (H. Hinnant's days_from_civil, inverted), in 400-year eras.
  const shifted = days + 719_468
  const era = Math.floor(shifted / 146_097)
  const dayOfEra = shifted - era * 146_097
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  const millis = rest - seconds * 1000
  // One flat string of the 24 character codes: a template literal of its 13 parts made a string
  // for each join (~300 bytes of young garbage a timestamp, 59 KB of a cold 50-article page's
  // 595, sampled), and the text was flattened again when it was written into the answer.
  return String.fromCharCode(
    zero + Math.floor(year / 1000), zero + (Math.floor(year / 100) % 10), zero + (Math.floor(year / 10) % 10), zero + (year % 10), hyphen,
    zero + Math.floor(month / 10), zero + (month % 10), hyphen, zero + Math.floor(day / 10), zero + (day % 10), letterT,
    zero + Math.floor(hours / 10), zero + (hours % 10), colon, zero + Math.floor(minutes / 10), zero + (minutes % 10), colon,
    zero + Math.floor(seconds / 10), zero + (seconds % 10), dot, zero + Math.floor(millis / 100), zero + (Math.floor(millis / 10) % 10), zero + (millis % 10), letterZ,
  )
}

const dayMs = 86_400_000
// 9999-12-31T23:59:59.999Z: four-digit years, as toISOString writes them.
const lastFastMs = 253_402_300_799_999
const [zero, hyphen, letterT, colon, dot, letterZ] = ['0', '-', 'T', ':', '.', 'Z'].map((character) => character.charCodeAt(0)) as [number, number, number, number, number, number]
