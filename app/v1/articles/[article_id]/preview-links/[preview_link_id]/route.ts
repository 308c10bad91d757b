import { revokePreviewLinkOperation } from '@/lib/api/operations/preview-link-operations'
import { apiRoute, withApi } from '@/lib/api/with-api'
import { revokePreviewLink } from '@/lib/articles/preview-links'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  DELETE: withApi(revokePreviewLinkOperation, async ({ actor, params }) => {
    await revokePreviewLink(actor, params.article_id, params.preview_link_id)
    return new Response(null, { status: 204 })
  }),
})
