import { listArticleRevisionsOperation } from '@/lib/api/operations/revision-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { listRevisions } from '@/lib/articles/article-revisions'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listArticleRevisionsOperation, async ({ actor, params, query }) => {
    const page = await listRevisions(actor, params.article_id, query)
    return jsonResponse(pageRecord(page, (revision) => revision))
  }),
})
