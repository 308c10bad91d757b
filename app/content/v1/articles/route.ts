import { listContentArticlesOperation } from '@/lib/api/operations/content-operations'
import { queryKey, renderJson } from '@/lib/api/conditional-response'
import { contentRoute } from '@/lib/api/content-route'
import { withContentApi } from '@/lib/api/with-content-api'
import { listSurrogateKey } from '@/lib/content/surrogate-keys'
import { listPublishedArticles, toPublicArticle } from '@/lib/content/public-articles'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = contentRoute({
  GET: withContentApi(listContentArticlesOperation, async ({ tenant, query, cachedRead }) => ({
    body: await cachedRead(`list:${queryKey(query)}`, async () => renderJson(pageRecord(await listPublishedArticles(tenant, query), toPublicArticle))),
    keys: [listSurrogateKey(tenant.id)],
  })),
})
