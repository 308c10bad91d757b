import { describe, expect, it } from 'vitest'
import { DomainError, ValidationError } from './errors.ts'
import { assertInputShape, jsonTextNestsDeeperThan, maxInputNestingDepth } from './input-shape.ts'

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const deeper = (text: string) => jsonTextNestsDeeperThan(Buffer.from(text))

describe('jsonTextNestsDeeperThan', () => {
  it('counts brackets up to the limit, and one past it', () => {
    expect(deeper(nested(maxInputNestingDepth))).toBe(false)
    expect(deeper(nested(maxInputNestingDepth + 1))).toBe(true)
    expect(deeper('{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000))).toBe(true)
  })

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    expect(deeper(`"${'['.repeat(100)}"`)).toBe(false)
    expect(deeper(`{"a":"\\"${'['.repeat(100)}"}`)).toBe(false)
    expect(deeper(`{"a\\\\":${nested(maxInputNestingDepth)}}`)).toBe(true)
    expect(deeper(`"\\\\\\"${'['.repeat(100)}`)).toBe(false)
    expect(deeper(`{"é😀":"${'x'.repeat(1_000)}","b":${nested(maxInputNestingDepth - 1)}}`)).toBe(false)
  })
})

describe('assertInputShape', () => {
  const fieldErrors = (input: unknown) => {
    try {
      assertInputShape(input)
      return []
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError)
      return (error as ValidationError).fieldErrors
    }
  }

  it('names each field holding a lone surrogate, in values, keys and nested, and nothing else', () => {
    expect(fieldErrors({ headline: 'fine 😀', tags: ['ok'] })).toEqual([])
    expect(fieldErrors({ headline: '\ud800' })).toEqual([{ field: 'headline', message: expect.stringContaining('lone UTF-16 surrogate (\\ud800); send valid Unicode') }])
    expect(fieldErrors({ articles: [{}, { tags: ['a', 'b\udfff'] }] }).map((error) => error.field)).toEqual(['articles.1.tags.1'])
    expect(fieldErrors({ a: { ['k\udc00']: 1 } })).toEqual([{ field: 'a.k\\udc00', message: expect.stringContaining("The key 'k\\udc00'") }])
    expect(fieldErrors('\ud83d').map((error) => error.field)).toEqual(['(body)'])
  })

  it('names each field holding NUL, which PostgreSQL text and JSON cannot hold, and writes the NUL of a key as its escape', () => {
    expect(fieldErrors({ headline: 'Council\u0000 votes' })).toEqual([{ field: 'headline', message: expect.stringContaining('contains NUL (\\u0000)') }])
    expect(fieldErrors({ articles: [{ tags: ['a', '\u0000'] }] }).map((error) => error.field)).toEqual(['articles.0.tags.1'])
    expect(fieldErrors({ ['k\u0000']: 1 })).toEqual([{ field: 'k\\u0000', message: expect.stringContaining("The key 'k\\u0000' contains NUL") }])
    // No NUL in the answer itself, which the request log and an idempotent replay store.
    expect(fieldErrors({ ['k\u0000']: '\u0000' }).flatMap((error) => [error.field, error.message]).some((text) => text.includes('\u0000'))).toBe(false)
    expect(fieldErrors('id\u0000').map((error) => error.field)).toEqual(['(body)'])
  })

  it('refuses nesting past the limit without recursion, however deep', () => {
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = { a: deep }
    expect(() => assertInputShape(deep)).toThrow(DomainError)
    expect(() => assertInputShape(JSON.parse(nested(maxInputNestingDepth)))).not.toThrow()
    let caught: unknown
    try {
      assertInputShape(JSON.parse(nested(maxInputNestingDepth + 1)))
    } catch (error) {
      caught = error
    }
    expect((caught as DomainError | undefined)?.code).toBe('nesting_too_deep')
  })
})
