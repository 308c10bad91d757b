import { z } from 'zod'
import { createApiTokenSchema, renameApiTokenSchema, rollApiTokenSchema, setApiTokenAllowlistSchema } from '../../tokens/api-token-schemas.ts'
import { pageRecord } from '../../pagination.ts'
import { listApiRequests, toApiRequestRecord } from '../../request-log/list-api-requests.ts'
import { listApiRequestsQuerySchema } from '../../request-log/request-log-schemas.ts'
import { createApiToken, getApiToken, listApiTokens, renameApiToken, revokeApiToken, rollApiToken, setApiTokenAllowlist, type ApiTokenSummary } from '../../tokens/api-tokens.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

const procedure = scopedProcedure('admin')

// No transformer is configured, so dates travel as ISO strings; saying so in the types
// keeps the pages from treating them as Date objects.
export function toApiKeyView(key: ApiTokenSummary) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    ownerName: key.ownerName,
    ownerActive: key.ownerActive,
    createdByName: key.createdByName,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    rotationRecommended: key.rotationRecommended,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    expired: key.expired,
    allowedAddresses: key.allowedAddresses,
    rolledAt: key.rolledAt?.toISOString() ?? null,
    previousSecretWorksUntil: key.previousSecretWorksUntil?.toISOString() ?? null,
  }
}

export type ApiKeyView = ReturnType<typeof toApiKeyView>

export const apiKeysRouter = router({
  list: procedure.query(async ({ ctx }) => (await listApiTokens(ctx.actor)).map(toApiKeyView)),

  get: procedure.input(domainInput(z.object({ id: z.string().min(1) }))).query(async ({ ctx, input }) => toApiKeyView(await getApiToken(ctx.actor, input.id))),

  /** The key's request log, as GET /v1/requests answers it (the same records). */
  requests: procedure
    .input(domainInput(listApiRequestsQuerySchema.required({ token_id: true })))
    .query(async ({ ctx, input }) => pageRecord(await listApiRequests(ctx.actor, input), toApiRequestRecord)),

  /** The token is in this answer only; it is never stored or shown again. */
  create: procedure.input(domainInput(createApiTokenSchema)).mutation(async ({ ctx, input }) => {
    const { token, summary } = await createApiToken(ctx.actor, input)
    return { token, key: toApiKeyView(summary) }
  }),

  /** A new secret for the same key, shown once; the old one works for the chosen overlap. */
  roll: procedure.input(domainInput(rollApiTokenSchema)).mutation(async ({ ctx, input }) => {
    const { token, summary } = await rollApiToken(ctx.actor, input)
    return { token, key: toApiKeyView(summary) }
  }),

  rename: procedure.input(domainInput(renameApiTokenSchema)).mutation(async ({ ctx, input }) => toApiKeyView(await renameApiToken(ctx.actor, input))),

  setAllowlist: procedure
    .input(domainInput(setApiTokenAllowlistSchema))
    .mutation(async ({ ctx, input }) => toApiKeyView(await setApiTokenAllowlist(ctx.actor, input))),

  revoke: procedure
    .input(domainInput(z.object({ id: z.string().min(1) })))
    .mutation(async ({ ctx, input }) => toApiKeyView(await revokeApiToken(ctx.actor, input.id))),
})
