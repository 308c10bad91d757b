import { z } from 'zod'
import { withoutNul } from '../validation.ts'

export const defaultPreviewSeconds = 24 * 60 * 60
export const maxPreviewSeconds = 30 * 24 * 60 * 60

export const createPreviewLinkSchema = z
  .strictObject({
    expires_in: z
      .number()
      .int('expires_in must be a whole number of seconds.')
      .min(60, 'expires_in must be at least 60 seconds.')
      .max(maxPreviewSeconds, `expires_in must be at most ${maxPreviewSeconds} seconds (30 days).`)
      .optional()
      .meta({ description: 'Seconds until the link stops working: 60 to 2,592,000 (30 days); default 86,400 (a day).', example: 3600 }),
    revision_id: withoutNul(z.string().min(1).max(200))
      .optional()
      .meta({ description: "One of the article's revisions to show, instead of the article as it is when the link is opened." }),
  })
  .meta({ id: 'CreatePreviewLink' })

export const previewLinkSchema = z
  .object({
    preview_link_id: z.string().meta({ example: 'prv_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    article_id: z.string(),
    revision_id: z.string().nullable(),
    expires_at: z.iso.datetime({ offset: true }),
    created_at: z.iso.datetime({ offset: true }),
    created_by: z.object({ id: z.string(), name: z.string() }).nullable(),
  })
  .meta({ id: 'PreviewLink' })

export const mintedPreviewLinkSchema = previewLinkSchema
  .extend({
    token: z.string().meta({ description: 'Shown only here: the service keeps only its hash.', example: 'nrp_q7Vh3mK9xR2pL8wN4tY6bC1dF5gJ0sA3eZ7uI9oP2kM' }),
    url: z.url().meta({ description: "The newsroom site's preview page for it: `<public_site_url>/preview?token=…`." }),
  })
  .meta({ id: 'MintedPreviewLink' })

export type PreviewLinkRecord = z.infer<typeof previewLinkSchema>
export type MintedPreviewLink = z.infer<typeof mintedPreviewLinkSchema>

export const previewLinkListSchema = z.object({ items: z.array(previewLinkSchema) }).meta({ id: 'PreviewLinkList' })

export const previewLinkPathSchema = z.object({
  article_id: withoutNul(z.string().min(1).max(200)),
  preview_link_id: withoutNul(z.string().min(1).max(200)),
})

export const previewTokenPathSchema = z.object({ token: withoutNul(z.string().min(1).max(200)) })
