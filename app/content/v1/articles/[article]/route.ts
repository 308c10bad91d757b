import { getContentArticleOperation } from '@/lib/api/operations/content-operations'
import { renderJson } from '@/lib/api/conditional-response'
import { contentRoute } from '@/lib/api/content-route'
import { withContentApi } from '@/lib/api/with-content-api'
import { articleSurrogateKey } from '@/lib/content/surrogate-keys'
import { getPublishedArticle, toPublicArticle } from '@/lib/content/public-articles'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = contentRoute({
  // One indexed read per miss; the shared cache in front answers the rest.
  GET: withContentApi(getContentArticleOperation, async ({ tenant, params }) => {
    const article = await getPublishedArticle(tenant, params.article)
    return { body: renderJson(toPublicArticle(article)), keys: [articleSurrogateKey(article.id)] }
  }),
})
