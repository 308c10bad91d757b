/**
 * The runtime's own Date constructor. Next's server replaces the global `Date` with a wrapper
 * (next/dist/server/node-environment-extensions/date) that tells its prerender tracking about
 * `new Date()` and `Date.now()`; every `new Date(ms)` through it is a `Reflect.construct` with
 * `arguments`. The ~200 dates pg's parsers make for a cold 50-article page went through it:
 * ~2 % of the service's CPU in that row (issue 50). Reading rows is never a prerender's clock.
 *
 * The server's entry (scripts/start.ts, scripts/dev.ts) records the constructor before Next
 * loads, on a registered symbol, since Next's build and the entry's bundle share no module. Where
 * none was recorded (tests, tools), this is `Date` as it is.
 */
const recorded = Symbol.for('newsroom.native-date')
type WithRecordedDate = typeof globalThis & { [recorded]?: DateConstructor }

/** Called first thing by a server's entry, before Next's server module is loaded. */
export function recordNativeDate(): void {
  ;(globalThis as WithRecordedDate)[recorded] ??= Date
}

export function nativeDate(): DateConstructor {
  return (globalThis as WithRecordedDate)[recorded] ?? Date
}
