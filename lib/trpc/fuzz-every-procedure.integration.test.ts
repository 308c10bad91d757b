import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { z } from 'zod'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { hostileJsonValues } from '../../tests/support/hostile-values.ts'
import { internalTextIn } from '../../tests/support/internal-text.ts'
import { logger } from '../ops/logger.ts'
import { encryptSecret } from '../security/secret-box.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import type { PortalContext } from './init.ts'
import { appRouter } from './routers/app-router.ts'

// Every portal procedure, sent the hostile values the /v1 fuzz test sends its operations
// (tests/api/fuzz-every-operation): NUL, lone escapes, huge strings and numbers, wrong types.
// Whatever it is sent, a procedure answers with a tRPC error a form can show (4xx), never
// INTERNAL_SERVER_ERROR, and no answer carries internal text (Prisma's wording, SQL, a stack
// frame): each call goes through the portal's HTTP handler, so the answer judged is the one the
// browser would read, shaped by the router's errorFormatter. Each field is fuzzed in turn on an otherwise plausible input, so the
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
  // A stored SSO connection, so a save reaches the update of an existing one (issue 46: a save
  // without retyping the secret was a 500 carrying Prisma's text).
  await systemDb().ssoConnection.create({
    data: { tenantId: newsroom.tenant.id, displayName: 'IdP', issuer: 'https://login.example.org', clientId: 'portal', clientSecretEncrypted: encryptSecret('stored secret') },
  })
})

type Answer = { status: number; text: string }

/** One call as the portal's browser makes it (httpLink, no transformer): GET for a query, POST for a mutation. */
async function send(context: PortalContext, path: string, type: 'query' | 'mutation', input: unknown): Promise<Answer> {
  const encoded = input === undefined ? undefined : JSON.stringify(input)
  const url = `http://portal.test/api/trpc/${path}${type === 'query' && encoded !== undefined ? `?input=${encodeURIComponent(encoded)}` : ''}`
  const request = new Request(url, type === 'query' ? { method: 'GET' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: encoded })
  const response = await fetchRequestHandler({ endpoint: '/api/trpc', req: request, router: appRouter, createContext: async () => ({ ...context, requestId: 'req_fuzz' }) })
  return { status: response.status, text: await response.text() }
}

describe('every portal procedure', () => {
  it('answers hostile input with an error the portal can show, never a 5xx, never internal text', { timeout: 300_000 }, async () => {
    const procedures = (appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures
    const admin = newsroom.users.admin
    const context: PortalContext = {
      member: { id: admin.id, email: admin.email, name: 'Admin', role: 'admin', tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
      tenant: newsroom.actor('admin').tenant,
      // Recently re-authenticated, so the procedures that ask for it go on to read their input.
      session: { id: 'ses_fuzz', reauthenticatedAt: new Date() },
      clientAddress: '127.0.0.1',
    }

    const failures: string[] = []
    let calls = 0
    for (const [path, procedure] of Object.entries(procedures)) {
      for (const input of inputsFor(procedure._def.inputs[0]?.schema)) {
        calls++
        const answer = await send(context, path, procedure._def.type, input)
        const leaked = internalTextIn(answer.text)
        if (answer.status >= 500 || leaked) {
          const shown = JSON.stringify(input, (_key, value: unknown) => (typeof value === 'string' && value.length > 40 ? `${value.slice(0, 20)}…(${value.length})` : value))
          failures.push(`${path}(${shown}) → ${answer.status}${leaked ? ` carrying ${leaked}` : ''}: ${answer.text.slice(0, 300)}`)
        }
      }
    }
    expect(calls).toBeGreaterThan(1_000)
    expect(failures).toEqual([])
  })

  it('answers an unexpected failure with the generic message and the request id, and keeps the detail in the log', async () => {
    const admin = newsroom.users.admin
    // A member whose newsroom row is gone underneath the session: the domain did not foresee it.
    const context: PortalContext = {
      member: { id: admin.id, email: admin.email, name: 'Admin', role: 'admin', tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
      tenant: { ...newsroom.actor('admin').tenant, id: 'ten_\u0000broken' } as PortalContext['tenant'],
      session: { id: 'ses_fuzz', reauthenticatedAt: new Date() },
      clientAddress: '127.0.0.1',
    }
    const logged = vi.spyOn(logger, 'error')
    const answers = await Promise.all(['apiKeys.list', 'webhooks.list', 'users.list', 'sso.get'].map((path) => send(context, path, 'query', undefined)))
    // The detail is in the server log, under the same request id.
    expect(logged.mock.calls.filter(([fields]) => (fields as { request_id?: string }).request_id === 'req_fuzz')).toHaveLength(4)
    for (const answer of answers) {
      // PostgreSQL refuses the NUL in the tenant id: Prisma's long message names the file and line.
      expect(answer.status).toBe(500)
      expect(internalTextIn(answer.text)).toBeNull()
      const body = JSON.parse(answer.text) as { error: { message: string; data: { requestId: string; stack?: string } } }
      expect(body.error.message).toBe('Something went wrong on our side. Quote request id req_fuzz if you contact support.')
      expect(body.error.data.requestId).toBe('req_fuzz')
      expect(body.error.data.stack).toBeUndefined()
    }
    logged.mockRestore()
  })
})
