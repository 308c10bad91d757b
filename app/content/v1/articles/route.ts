import { listContentArticlesOperation } from '@/lib/api/operations/content-operations'
import { queryKey, renderJson } from '@/lib/api/conditional-response'
import { contentRoute } from '@/lib/api/content-route'
import { responseCacheTtlMs } from '@/lib/api/response-cache'
import { withContentApi } from '@/lib/api/with-content-api'
import { listSurrogateKey } from '@/lib/content/surrogate-keys'
import { listPublishedArticles, toPublicArticlesAndTurn } from '@/lib/content/public-articles'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = contentRoute({
  GET: withContentApi(listContentArticlesOperation, async ({ tenant, query, cachedRead }) => ({
    body: await cachedRead(`list:${queryKey(query)}`, async () => {
      const page = await listPublishedArticles(tenant, query)
      const { articles: shown, turnsAt } = await toPublicArticlesAndTurn(tenant.id, page.items)
      const body = renderJson(pageRecord({ ...page, items: shown }, (article) => article))
      // An image's embargo or licence ending changes this answer with no write to move the
      // article generation: an answer that would be kept past that instant is not kept.
      return turnsAt && turnsAt.getTime() - Date.now() < responseCacheTtlMs ? { ...body, transient: true } : body
    }),
    keys: [listSurrogateKey(tenant.id)],
  })),
})
