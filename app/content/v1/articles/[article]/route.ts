import { getContentArticleOperation } from '@/lib/api/operations/content-operations'
import { renderJson } from '@/lib/api/conditional-response'
import { contentRoute } from '@/lib/api/content-route'
import { withContentApi } from '@/lib/api/with-content-api'
import { articleSurrogateKey } from '@/lib/content/surrogate-keys'
import { getPublishedArticle, toPublicArticles } from '@/lib/content/public-articles'
import { mediaSurrogateKey } from '@/lib/media/media-purges'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = contentRoute({
  // Two indexed reads per miss (the article, its images); the shared cache in front answers the rest.
  GET: withContentApi(getContentArticleOperation, async ({ tenant, params }) => {
    const article = await getPublishedArticle(tenant, params.article)
    const [shown] = await toPublicArticles(tenant.id, [article])
    // Filed under its images too: a change to one (caption, rights, withheld at expiry) purges the page.
    return { body: renderJson(shown), keys: [articleSurrogateKey(article.id), ...article.mediaIds.map(mediaSurrogateKey)] }
  }),
})
