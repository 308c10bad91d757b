import { z } from 'zod'
import { createContentKeySchema } from '../../content/content-key-schemas.ts'
import { createContentKey, listContentKeys, revokeContentKey, type ContentKeySummary } from '../../content/content-keys.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

const procedure = scopedProcedure('admin')

export function toContentKeyView(key: ContentKeySummary) {
  return { id: key.id, name: key.name, prefix: key.prefix, createdAt: key.createdAt.toISOString(), revokedAt: key.revokedAt?.toISOString() ?? null }
}

export type ContentKeyView = ReturnType<typeof toContentKeyView>

/** Public content keys (Settings → API Keys → Content keys): read-only keys a site embeds. */
export const contentKeysRouter = router({
  list: procedure.query(async ({ ctx }) => (await listContentKeys(ctx.actor)).map(toContentKeyView)),

  /** The key is in this answer only; only its hash is stored. */
  create: procedure.input(domainInput(createContentKeySchema)).mutation(async ({ ctx, input }) => {
    const { key, summary } = await createContentKey(ctx.actor, input.name)
    return { key, contentKey: toContentKeyView(summary) }
  }),

  revoke: procedure.input(domainInput(z.object({ id: z.string().min(1) }))).mutation(async ({ ctx, input }) => toContentKeyView(await revokeContentKey(ctx.actor, input.id))),
})
