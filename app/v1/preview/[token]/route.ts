import { apiRoute, errorResponse, jsonResponse } from '@/lib/api/with-api'
import { problemResponse } from '@/lib/api/problem'
import { openPreview } from '@/lib/articles/preview-links'
import { createId } from '@/lib/ids'

// Public on purpose: the newsroom's site exchanges a preview token here without an API key; the
// token (32 random bytes, stored as a hash) is the credential and opens exactly one article.
const privateHeaders = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' }

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: async (_request, context) => {
    const requestId = createId('req')
    try {
      const { token } = (await context.params) as { token: string }
      const preview = await openPreview(token)
      if (!preview) return problemResponse({ code: 'not_found', detail: 'This preview link does not exist, has expired or was revoked. Ask for a new one.' }, requestId, privateHeaders)
      return jsonResponse(preview.article, { headers: { ...privateHeaders, 'X-Request-Id': requestId } })
    } catch (error) {
      return errorResponse(error, requestId, privateHeaders)
    }
  },
})
