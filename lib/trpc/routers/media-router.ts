import { z } from 'zod'
import { deleteMedia, getMedia, listMedia, updateMedia } from '../../media/media-library.ts'
import { mediaBadges } from '../../media/media-badges.ts'
import { mediaActionRefusal } from '../../media/media-permissions.ts'
import { toMediaRecord, type MediaWithUse } from '../../media/media-record.ts'
import { listMediaQuerySchema, mediaPathSchema, updateMediaSchema } from '../../media/media-schemas.ts'
import { describeMediaUses } from '../../media/media-uses.ts'
import { pageRecord } from '../../pagination.ts'
import type { Actor } from '../../tenancy/actor.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

/** The image version the page showed when the person acted: what a change or a deletion asks to replace. */
const version = z.number().int().min(1)

// The API's list query; `unused` arrives as JSON here, a boolean, not the query string's 'true'.
const portalListSchema = listMediaQuerySchema.extend({ unused: z.boolean({ error: 'unused must be true or false.' }).optional() })

/**
 * An image as the portal shows it: the API's record, its rights badges (mediaBadges, from the
 * publishing rule) and whether this member may change or delete it, asked of the one rule the
 * domain refuses by (mediaActionRefusal), so a button is offered exactly when it would work.
 */
function portalMedia(actor: Actor, media: MediaWithUse) {
  return {
    ...toMediaRecord(media),
    badges: mediaBadges(media),
    edit_refusal: mediaActionRefusal(actor.user, media, 'edit'),
    delete_refusal: mediaActionRefusal(actor.user, media, 'delete'),
  }
}
export type PortalMedia = ReturnType<typeof portalMedia>

/** The Media page and the article editor's pickers: thin adapters over lib/media. */
export const mediaRouter = router({
  list: scopedProcedure('media:read')
    .input(domainInput(portalListSchema))
    .query(async ({ ctx, input }) => pageRecord(await listMedia(ctx.actor, input), (media) => portalMedia(ctx.actor, media))),

  get: scopedProcedure('media:read')
    .input(domainInput(mediaPathSchema))
    .query(async ({ ctx, input }) => {
      const media = await getMedia(ctx.actor, input.media_id)
      return { media: portalMedia(ctx.actor, media), uses: await describeMediaUses(ctx.actor, media.usedBy) }
    }),

  update: scopedProcedure('media:write')
    .input(domainInput(z.strictObject({ media_id: mediaPathSchema.shape.media_id, version, changes: updateMediaSchema })))
    .mutation(async ({ ctx, input }) => portalMedia(ctx.actor, await updateMedia(ctx.actor, input.media_id, input.changes, { expectedVersion: input.version }))),

  delete: scopedProcedure('media:write')
    .input(domainInput(z.strictObject({ media_id: mediaPathSchema.shape.media_id, version })))
    .mutation(async ({ ctx, input }) => {
      await deleteMedia(ctx.actor, input.media_id, { expectedVersion: input.version })
      return { deleted: input.media_id }
    }),
})
