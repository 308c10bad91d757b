import { createPreviewLinkOperation, listPreviewLinksOperation } from '@/lib/api/operations/preview-link-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { createPreviewLink, listPreviewLinks } from '@/lib/articles/preview-links'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listPreviewLinksOperation, async ({ actor, params }) => jsonResponse({ items: await listPreviewLinks(actor, params.article_id) })),
  POST: withApi(createPreviewLinkOperation, async ({ actor, params, body }) => jsonResponse(await createPreviewLink(actor, params.article_id, body), { status: 201 })),
})
