import { z } from 'zod'
import { createApiToken, isRotationRecommended, listApiTokens, revokeApiToken, type ApiTokenSummary } from '../../tokens/api-tokens.ts'
import { deactivatedUserIds } from '../../users/manage-users.ts'
import { domainInput } from '../domain-input.ts'
import { adminProcedure, router } from '../init.ts'

// No transformer is configured, so dates travel as ISO strings; saying so in the types
// keeps the pages from treating them as Date objects.
function toApiKeyView(key: ApiTokenSummary, ownerActive: boolean, now = new Date()) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    ownerName: key.ownerName,
    // A deactivated owner's tokens are refused even though they are not revoked.
    ownerActive,
    createdByName: key.createdByName,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    rotationRecommended: !key.revokedAt && isRotationRecommended(key.createdAt, now),
  }
}

export type ApiKeyView = ReturnType<typeof toApiKeyView>

export const apiKeysRouter = router({
  list: adminProcedure.query(async ({ ctx }) => {
    const [keys, deactivated] = await Promise.all([listApiTokens(ctx.tenant.id), deactivatedUserIds(ctx.tenant.id)])
    return keys.map((key) => toApiKeyView(key, !deactivated.has(key.ownerId)))
  }),

  /** The token is in this answer only; it is never stored or shown again. */
  create: adminProcedure
    .input(domainInput(z.object({ name: z.string(), scopes: z.array(z.string()) })))
    .mutation(async ({ ctx, input }) => {
      const { token, summary } = await createApiToken({
        tenantId: ctx.tenant.id,
        name: input.name,
        scopes: input.scopes,
        ownerId: ctx.member.id,
        createdById: ctx.member.id,
      })
      return { token, key: toApiKeyView(summary, true) }
    }),

  revoke: adminProcedure
    .input(domainInput(z.object({ id: z.string().min(1) })))
    .mutation(async ({ ctx, input }) => {
      const key = await revokeApiToken({ tenantId: ctx.tenant.id, idOrPrefix: input.id, actorId: ctx.member.id })
      return toApiKeyView(key, !(await deactivatedUserIds(ctx.tenant.id)).has(key.ownerId))
    }),
})
