import { createArticleOperation, listArticlesOperation } from '@/lib/api/operations/article-operations'
import { conditionalAnswer, queryKey, renderJson } from '@/lib/api/conditional-response'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { articleHeaders } from '@/lib/api/resource-headers'
import { toArticleRecord } from '@/lib/articles/article-record'
import { createArticle } from '@/lib/articles/create-article'
import { listArticleRecords } from '@/lib/articles/list-articles'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listArticlesOperation, async ({ actor, query, request, cachedRead }) => {
    const render = async () => renderJson(pageRecord(await listArticleRecords(actor, query), (record) => record))
    // The changes feed moves when any write transaction of the database ends (its horizon), not
    // only with the newsroom's generation, so only the other orders are cached.
    const rendered = query.sort === 'updated_at' ? await render() : await cachedRead(`list:${queryKey(query)}`, render)
    return conditionalAnswer(request, rendered)
  }),
  POST: withApi(createArticleOperation, async ({ actor, body }) => {
    const article = await createArticle(actor, body)
    return jsonResponse(toArticleRecord(article), { status: 201, headers: articleHeaders(article, { location: true }) })
  }),
})
