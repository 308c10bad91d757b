import { TRPCError } from '@trpc/server'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { hostileJsonValues } from '../../tests/support/hostile-values.ts'
import { createCallerFactory } from './init.ts'
import { appRouter } from './routers/app-router.ts'

// Every portal procedure, sent the hostile values the /v1 fuzz test sends its operations
// (tests/api/fuzz-every-operation): NUL, lone escapes, huge strings and numbers, wrong types.
// Whatever it is sent, a procedure answers with a tRPC error a form can show (4xx), never
// INTERNAL_SERVER_ERROR. Each field is fuzzed in turn on an otherwise plausible input, so the
// value reaches the domain and the database rather than stopping at a missing sibling.

type Procedure = { _def: { type: 'query' | 'mutation'; inputs: { schema?: z.ZodType }[] } }

// The /v1 fuzz test's values as JavaScript values (1e400 is Infinity here), and what a portal
// form adds: an id holding NUL, a plain word or number where an object belongs, nested NUL, an
// address on a closed local port (webhook URLs, the SSO issuer), a percent-escape left as text.
const hostileValues: unknown[] = [
  ...Object.values(hostileJsonValues).map((text) => JSON.parse(text) as unknown),
  'art_\u0000x',
  'x',
  1,
  { a: { b: '\u0000' } },
  'http://127.0.0.1:1/',
  '%FF',
]

type ZodDef = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; options?: z.ZodType[]; entries?: Record<string, string>; values?: unknown[]; element?: z.ZodType }
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def

/** A value the schema accepts, or comes close to: ids that exist nowhere, short words, the first choice. */
function plausible(schema: z.ZodType): unknown {
  const def = defOf(schema)
  switch (def.type) {
    case 'object':
      return Object.fromEntries(Object.entries(def.shape!).flatMap(([key, field]) => (defOf(field).type === 'optional' ? [] : [[key, plausible(field)]])))
    case 'string':
      return 'x'
    case 'number':
    case 'int':
      return 1
    case 'boolean':
      return true
    case 'enum':
      return Object.values(def.entries!)[0]
    case 'literal':
      return def.values![0]
    case 'array':
      return []
    case 'record':
      return {}
    case 'date':
      return new Date()
    case 'union':
      return plausible(def.options![0]!)
    case 'pipe':
      return plausible(def.in!)
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'catch':
      return plausible(def.innerType!)
    default:
      return 'x'
  }
}

function fieldsOf(schema: z.ZodType | undefined): string[] {
  if (!schema) return []
  const def = defOf(schema)
  if (def.type === 'object') return Object.keys(def.shape!)
  if (def.type === 'pipe') return fieldsOf(def.in)
  return []
}

function inputsFor(schema: z.ZodType | undefined): unknown[] {
  const shapes: unknown[] = [undefined, ...hostileValues]
  if (!schema) return shapes
  const base = plausible(schema)
  shapes.push(base)
  for (const field of fieldsOf(schema)) {
    for (const value of hostileValues) shapes.push({ ...(base as object), [field]: value })
  }
  return shapes
}

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
})

describe('every portal procedure', () => {
  it('answers hostile input with an error the portal can show, never INTERNAL_SERVER_ERROR', { timeout: 180_000 }, async () => {
    const procedures = (appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures
    const admin = newsroom.users.admin
    const caller = createCallerFactory(appRouter)({
      member: { id: admin.id, email: admin.email, name: 'Admin', role: 'admin', tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
      tenant: newsroom.actor('admin').tenant,
      // Recently re-authenticated, so the procedures that ask for it go on to read their input.
      session: { id: 'ses_fuzz', reauthenticatedAt: new Date() },
      clientAddress: '127.0.0.1',
    }) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>

    const failures: string[] = []
    let calls = 0
    for (const [path, procedure] of Object.entries(procedures)) {
      const [area, name] = path.includes('.') ? path.split('.') : [path, undefined]
      const call = name ? caller[area!]![name]! : (caller[area!] as unknown as (input: unknown) => Promise<unknown>)
      for (const input of inputsFor(procedure._def.inputs[0]?.schema)) {
        calls++
        try {
          await call(input)
        } catch (error) {
          if (!(error instanceof TRPCError) || error.code === 'INTERNAL_SERVER_ERROR') {
            const shown = JSON.stringify(input, (_key, value: unknown) => (typeof value === 'string' && value.length > 40 ? `${value.slice(0, 20)}…(${value.length})` : value))
            failures.push(`${path}(${shown}): ${(error as Error).message.slice(0, 200)}`)
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(1_000)
    expect(failures).toEqual([])
  })
})
