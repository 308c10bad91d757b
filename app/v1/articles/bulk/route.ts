import { bulkImportOperation } from '@/lib/api/operations/article-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { importArticles } from '@/lib/articles/bulk-import'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  // 500 articles of a few hundred KB each must fit; the per-endpoint default is 1 MiB.
  POST: withApi(bulkImportOperation, async ({ actor, principal, body }) => {
    return jsonResponse(await importArticles(actor, body.articles, { tokenScopes: principal.scopes }))
  }),
})
