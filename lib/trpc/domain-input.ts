import type { z } from 'zod'
import { parseInput } from '../parse-input.ts'

/**
 * A procedure input that fails with the domain's ValidationError, so the portal gets the
 * same per-field messages (`data.fieldErrors`) as from the domain itself. The role check
 * runs first: tRPC applies input parsing after the procedure's middlewares. The schema rides
 * along for the fuzz test of every procedure (fuzz-every-procedure.integration.test.ts).
 */
export function domainInput<T extends z.ZodType>(schema: T) {
  return Object.assign((raw: unknown): z.output<T> => parseInput(schema, raw), { schema })
}
