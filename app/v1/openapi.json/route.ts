import { createHash } from 'node:crypto'
import { buildOpenApiDocument } from '@/lib/api/openapi/openapi-document'
import { apiRoute, errorResponse } from '@/lib/api/with-api'
import { createId } from '@/lib/ids'

// Public on purpose: code generators and API tools fetch the document without a key, and it
// holds nothing a newsroom's key would protect.

let served: { body: string; etag: string } | undefined

function servedDocument(): { body: string; etag: string } {
  if (!served) {
    const body = JSON.stringify(buildOpenApiDocument())
    served = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
  }
  return served
}

function ifNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const candidate = tag.trim()
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`
  })
}

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: async (request) => {
    const requestId = createId('req')
    try {
      const { body, etag } = servedDocument()
      const headers = {
        'X-Request-Id': requestId,
        ETag: etag,
        // Short enough that a deploy shows up within minutes; the ETag makes revalidation cheap.
        'Cache-Control': 'public, max-age=300',
        // Browser-based API tools on other origins may read it: it is public and carries no credentials.
        'Access-Control-Allow-Origin': '*',
      }
      if (ifNoneMatch(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers })
      return new Response(body, { status: 200, headers: { ...headers, 'Content-Type': 'application/json' } })
    } catch (error) {
      return errorResponse(error, requestId)
    }
  },
})
