import { listContentArticlesOperation } from '@/lib/api/operations/content-operations'
import { queryKey, renderJson } from '@/lib/api/conditional-response'
import { contentRoute } from '@/lib/api/content-route'
import { withContentApi } from '@/lib/api/with-content-api'
import { listSurrogateKey } from '@/lib/content/surrogate-keys'
import { listPublishedArticles, toPublicArticles } from '@/lib/content/public-articles'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = contentRoute({
  GET: withContentApi(listContentArticlesOperation, async ({ tenant, query, cachedRead }) => ({
    body: await cachedRead(`list:${queryKey(query)}`, async () => {
      const page = await listPublishedArticles(tenant, query)
      const shown = await toPublicArticles(tenant.id, page.items)
      return renderJson(pageRecord({ ...page, items: shown }, (article) => article))
    }),
    keys: [listSurrogateKey(tenant.id)],
  })),
})
