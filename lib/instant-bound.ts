/**
 * The instant an RFC 3339 bound of a query names, as the first whole millisecond at or after it.
 *
 * Timestamps are kept to the millisecond (timestamptz(3)), but a bound may carry any number of
 * fractional digits (a mirror fed from PostgreSQL sends microseconds), and a JS Date drops the
 * digits after the third: `published_before=…05.1235Z` read as `< …05.123` left out an article
 * published at .123, and `published_after=…05.1231Z` read as `>= …05.123` took it in. Against
 * millisecond values, `< t` and `>= t` mean the same as `<` and `>=` the first whole millisecond
 * at or after `t`, so those comparisons take this; `>` and `<=` are exact with the cut Date.
 */
export function instantAtOrAfter(text: string): Date {
  const date = new Date(text)
  const fraction = /T\d\d:\d\d:\d\d\.(\d+)/.exec(text)?.[1]
  // Date's fields are cut towards the past (before 1970 too), so one more millisecond rounds up.
  return fraction && fraction.length > 3 && /[1-9]/.test(fraction.slice(3)) ? new Date(date.getTime() + 1) : date
}
