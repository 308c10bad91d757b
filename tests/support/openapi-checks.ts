import { Validator } from '@seriousme/openapi-schema-validator'
import { expect } from 'vitest'

/** Fails unless `document` is a valid OpenAPI 3.1 document. */
export async function expectValidOpenApi31(document: object): Promise<void> {
  const validator = new Validator()
  const result = await validator.validate(structuredClone(document) as Record<string, unknown>)
  expect(result.errors).toBeUndefined()
  expect(result.valid).toBe(true)
  expect(validator.version).toBe('3.1')
}

/** A rendered reference page's in-page links (`href="#…"`), and those that lead to no element. */
export function inPageLinks(html: string): { targets: string[]; broken: string[] } {
  const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]))
  const targets = [...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]!)
  return { targets, broken: targets.filter((target) => !ids.has(target)) }
}
