import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { fastTimestamptz } from './db/fast-type-parsers.ts'
import { recordNativeDate } from './native-date.ts'

const recorded = Symbol.for('newsroom.native-date')
const runtimeDate = Date

// What Next's server does to the global Date (node-environment-extensions/date): a wrapper whose
// prototype is the runtime's, counting here every date made through it.
function installNextLikeWrapper(): { made: () => number } {
  let made = 0
  const wrapper = function Date(this: unknown, ...args: unknown[]) {
    made++
    return Reflect.construct(runtimeDate, args, new.target ?? runtimeDate)
  } as unknown as DateConstructor
  Object.defineProperties(wrapper, Object.getOwnPropertyDescriptors(runtimeDate))
  globalThis.Date = wrapper
  return { made: () => made }
}

afterEach(() => {
  globalThis.Date = runtimeDate
  delete (globalThis as Record<symbol, unknown>)[recorded]
})

describe('dates parsed from rows', () => {
  it("are made with the runtime's Date recorded before Next wraps the global one, and are Dates to every caller", () => {
    recordNativeDate()
    const wrapper = installNextLikeWrapper()
    const parse = fastTimestamptz(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => unknown)
    const parsed = parse('2026-11-29 19:57:18.123456+00')
    expect(wrapper.made()).toBe(0)
    expect(parsed).toBeInstanceOf(Date)
    expect(parsed).toBeInstanceOf(runtimeDate)
    expect((parsed as Date).toISOString()).toBe('2026-11-29T19:57:18.123Z')
  })

  it('go through the global Date where none was recorded (tests, tools)', () => {
    const wrapper = installNextLikeWrapper()
    const parse = fastTimestamptz(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => unknown)
    expect((parse('2026-11-29 19:57:18+00') as Date).getTime()).toBe(Date.UTC(2026, 10, 29, 19, 57, 18))
    expect(wrapper.made()).toBe(1)
  })
})
