import { transitionArticleOperation } from '@/lib/api/operations/article-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { articleHeaders, expectedVersionFromIfMatch } from '@/lib/api/resource-headers'
import { toArticleRecord } from '@/lib/articles/article-record'
import { transitionArticle } from '@/lib/articles/transition-article'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  POST: withApi(transitionArticleOperation, async ({ actor, params, body, request }) => {
    const { article } = await transitionArticle(actor, params.article_id, body, { expectedVersion: expectedVersionFromIfMatch(request.headers.get('if-match')) })
    return jsonResponse(toArticleRecord(article), { headers: articleHeaders(article) })
  }),
})
