import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { bulkImportSchema } from '@/lib/articles/article-schemas'
import { importArticles } from '@/lib/articles/bulk-import'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  // 500 articles of a few hundred KB each must fit; the per-endpoint default is 1 MiB.
  POST: withApi({ scope: 'articles:write', body: bulkImportSchema, maxBodyBytes: 32 * 1024 * 1024 }, async ({ actor, body }) => {
    return jsonResponse(await importArticles(actor, body.articles))
  }),
})
