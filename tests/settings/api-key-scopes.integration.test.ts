import { beforeAll, describe, expect, it } from 'vitest'
import { ForbiddenError } from '../../lib/errors.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { createApiTokenSchema } from '../../lib/tokens/api-token-schemas.ts'
import { createApiToken } from '../../lib/tokens/api-tokens.ts'
import { authenticateToken } from '../../lib/tokens/authenticate-token.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let newsroom: TestTenant
beforeAll(async () => {
  newsroom = await createTestTenant()
})

const key = (name: string, scopes: string[]) => parseInput(createApiTokenSchema, { name, scopes })
const refusal = (promise: Promise<unknown>) => promise.then(() => null, (caught: unknown) => caught as ForbiddenError & { code: string })

describe('who may create which API key', () => {
  it('lets an admin create a key of their own, with what an admin may grant, usable at once', async () => {
    const { token, summary } = await createApiToken(newsroom.actor('admin'), key('Wire importer', ['articles:read', 'webhooks:manage']))
    expect(summary).toMatchObject({ ownerId: newsroom.users.admin.id, createdById: newsroom.users.admin.id, scopes: ['articles:read', 'webhooks:manage'] })
    expect((await authenticateToken(token))?.scopes).toEqual(['articles:read', 'webhooks:manage'])
  })

  it('refuses editors and writers, and an admin naming another owner', async () => {
    expect(await refusal(createApiToken(newsroom.actor('editor'), key('Mine', ['articles:read'])))).toBeInstanceOf(ForbiddenError)
    expect(await refusal(createApiToken(newsroom.actor('writer'), key('Mine', ['articles:read'])))).toBeInstanceOf(ForbiddenError)
    const onBehalf = await refusal(createApiToken(newsroom.actor('admin'), { ...key('For the writer', ['articles:read']), ownerId: newsroom.users.writer.id }))
    expect(onBehalf).toBeInstanceOf(ForbiddenError)
  })

  it("bounds a key made by the system by its owner's role", async () => {
    const system = { ...newsroom.actor('admin'), user: null }
    const beyond = await refusal(createApiToken(system, { ...key('Too much', ['articles:read', 'admin']), ownerId: newsroom.users.writer.id }))
    expect(beyond).toBeInstanceOf(ForbiddenError)
    expect(beyond?.code).toBe('scope_not_grantable')
    expect(beyond?.message).toBe('A writer cannot grant: admin.')
    const { summary } = await createApiToken(system, { ...key('Reader', ['articles:read']), ownerId: newsroom.users.writer.id })
    expect(summary).toMatchObject({ ownerId: newsroom.users.writer.id, createdById: null })
  })
})
