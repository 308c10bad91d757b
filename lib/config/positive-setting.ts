/**
 * A whole, positive number from a setting, or `fallback`. A setting left empty or mistyped means
 * its default: Number('') is 0 and Number('two') or Number('64MB') NaN, which as a limit refused
 * every upload at once (an idle limit of 0 ms), parked every one (a slot count nothing is below),
 * or let a cache give up nothing (a byte budget nothing is over, break72). A fraction below 1 is
 * such a setting too: floored, it was that 0 (break70).
 */
export function positive(raw: string | undefined, fallback: number): number {
  const value = Math.floor(Number(raw))
  return Number.isFinite(value) && value > 0 ? value : fallback
}
