import { getArticleOperation, updateArticleOperation } from '@/lib/api/operations/article-operations'
import { conditionalAnswer } from '@/lib/api/conditional-response'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { articleHeaders, expectedVersionFromIfMatch } from '@/lib/api/resource-headers'
import { toArticleRecord } from '@/lib/articles/article-record'
import { getArticle } from '@/lib/articles/get-article'
import { renderedArticle } from '@/lib/api/article-answer'
import { updateArticle } from '@/lib/articles/update-article'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(getArticleOperation, async ({ actor, params, request, cachedRead }) => {
    const rendered = await cachedRead(`get:${params.article_id}`, async () => {
      const article = await getArticle(actor, params.article_id)
      return renderedArticle(article)
    })
    return conditionalAnswer(request, rendered)
  }),
  PATCH: withApi(updateArticleOperation, async ({ actor, params, body, request }) => {
    const article = await updateArticle(actor, params.article_id, body, { expectedVersion: expectedVersionFromIfMatch(request.headers.get('if-match')) })
    return jsonResponse(toArticleRecord(article), { headers: articleHeaders(article) })
  }),
})
