import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { getRevision } from '@/lib/articles/article-revisions'
import { revisionPathSchema } from '@/lib/articles/revision-schemas'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi({ scope: 'articles:read', params: revisionPathSchema }, async ({ actor, params }) => {
    return jsonResponse(await getRevision(actor.tenant.id, params.article_id, params.revision_id))
  }),
})
