import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { fastTimestamptz } from './db/fast-type-parsers.ts'
import { recordNativeDate } from './native-date.ts'
import { apiRequestEntry } from './request-log/request-log-entry.ts'

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

describe("a request log entry's time", () => {
  it("is made with the runtime's Date, not through Next's wrapper, for every request a key makes", () => {
    recordNativeDate()
    const wrapper = installNextLikeWrapper()
    const arrivedAt = Date.UTC(2026, 11, 1, 4, 40, 0, 250)
    const entry = apiRequestEntry({
      id: 'req_1', tenantId: 'ten_1', tokenId: 'tok_1', method: 'GET', route: '/v1/articles/{article_id}',
      url: new URL('http://localhost/v1/articles/art_1'), forwardedFor: '203.0.113.9', status: 200, problemCode: null, durationMs: 1.4, arrivedAt,
    })
    expect(wrapper.made()).toBe(0)
    expect(entry.createdAt).toBeInstanceOf(Date)
    expect(entry.createdAt.toISOString()).toBe('2026-12-01T04:40:00.250Z')
  })
})
