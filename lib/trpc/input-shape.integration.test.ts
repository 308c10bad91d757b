import { TRPCError } from '@trpc/server'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../db/client.ts'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { DomainError, ValidationError } from '../errors.ts'
import { createCallerFactory } from './init.ts'
import { appRouter } from './routers/app-router.ts'

// The portal's procedures parse their input where /v1 does (lib/parse-input.ts), so what no
// input may be (lib/input-shape.ts) is refused there too, as a 422 the form can show.

let newsroom: TestTenant
const caller = () => {
  const user = newsroom.users.writer
  return createCallerFactory(appRouter)({
    member: { id: user.id, email: user.email, name: 'Writer', role: 'writer', tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor('writer').tenant,
  })
}

async function refusal(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught)
  expect(error).toBeInstanceOf(TRPCError)
  return error as TRPCError
}

beforeAll(async () => {
  newsroom = await createTestTenant()
})

describe('tRPC inputs', () => {
  it('refuses a lone surrogate with a 422 naming the field, and stores nothing', async () => {
    const error = await refusal(caller().articles.create({ headline: '\ud800 Council votes' }))
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect(error.cause).toBeInstanceOf(ValidationError)
    expect((error.cause as ValidationError).fieldErrors).toEqual([{ field: 'headline', message: expect.stringContaining('lone UTF-16 surrogate (\\ud800); send valid Unicode') }])
    expect(await db.article.count({ where: { tenantId: newsroom.tenant.id } })).toBe(0)
  })

  it('names a nested field and a key holding one', async () => {
    const created = await caller().articles.create({ headline: 'Fine' })
    const error = await refusal(caller().articles.update({ article_id: created.article_id, version: 1, changes: { tags: ['ok', 'x\udfff'], ['le\ud83dde']: 'y' } as never }))
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect((error.cause as ValidationError).fieldErrors.map((fieldError) => fieldError.field).sort()).toEqual(['changes.le\\ud83dde', 'changes.tags.1'])
  })

  it('refuses nesting past the limit without walking it recursively', async () => {
    let deep: unknown = 'x'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const error = await refusal(caller().articles.create({ headline: 'Deep', tags: deep } as never))
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect(error.cause).toBeInstanceOf(DomainError)
    expect((error.cause as DomainError).code).toBe('nesting_too_deep')
  })
})
