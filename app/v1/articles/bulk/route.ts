import { bulkImportOperation } from '@/lib/api/operations/article-operations'
import { outsideLargeBodySlot } from '@/lib/api/large-body-gate'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { importArticles } from '@/lib/articles/bulk-import'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  // 500 articles of a few hundred KB each must fit; the per-endpoint default is 1 MiB.
  POST: withApi(bulkImportOperation, async ({ actor, principal, body }) => {
    // The body holds a large-body slot (withApi); the wire photos' fetches give it back while
    // they wait on other servers, so an upload is not queued behind them.
    return jsonResponse(await importArticles(actor, body.articles, { tokenScopes: principal.scopes }, { whileWaitingOnOthers: outsideLargeBodySlot }))
  }),
})
