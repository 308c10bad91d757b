import { createHash } from 'node:crypto'
import type { ApiRequest } from '../api-request.ts'
import { errorResponse } from '../with-api.ts'
import { createId } from '../../ids.ts'

/**
 * A GET handler serving an OpenAPI document (/v1's or the content API's): rendered once, with a
 * strong ETag for revalidation. Public on purpose: code generators and API tools fetch a
 * document without a key, and it holds nothing a newsroom's key would protect.
 */
export function servedOpenApiDocument(build: () => object): (request: ApiRequest) => Promise<Response> {
  let served: { body: string; etag: string } | undefined
  return async (request) => {
    const requestId = createId('req')
    try {
      if (!served) {
        const body = JSON.stringify(build())
        served = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
      }
      const headers = {
        'X-Request-Id': requestId,
        ETag: served.etag,
        // Short enough that a deploy shows up within minutes; the ETag makes revalidation cheap.
        'Cache-Control': 'public, max-age=300',
        // Browser-based API tools on other origins may read it: it is public and carries no credentials.
        'Access-Control-Allow-Origin': '*',
      }
      if (ifNoneMatch(request.headers.get('if-none-match'), served.etag)) return new Response(null, { status: 304, headers })
      return new Response(served.body, { status: 200, headers: { ...headers, 'Content-Type': 'application/json' } })
    } catch (error) {
      return errorResponse(error, requestId)
    }
  }
}

function ifNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const candidate = tag.trim()
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`
  })
}
