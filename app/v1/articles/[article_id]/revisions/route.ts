import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { listRevisions } from '@/lib/articles/article-revisions'
import { listRevisionsQuerySchema, revisionPathSchema } from '@/lib/articles/revision-schemas'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi({ scope: 'articles:read', params: revisionPathSchema.pick({ article_id: true }), query: listRevisionsQuerySchema }, async ({ actor, params, query }) => {
    const page = await listRevisions(actor.tenant.id, params.article_id, query)
    return jsonResponse(pageRecord(page, (revision) => revision))
  }),
})
