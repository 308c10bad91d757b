import { getArticleRevisionOperation } from '@/lib/api/operations/revision-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { getRevision } from '@/lib/articles/article-revisions'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(getArticleRevisionOperation, async ({ actor, params }) => {
    return jsonResponse(await getRevision(actor, params.article_id, params.revision_id))
  }),
})
