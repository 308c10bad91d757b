import { createId } from '@/lib/ids'
import { problemResponse } from '@/lib/api/problem'

// Anything under /v1 that no route serves: a problem+json 404 rather than Next's HTML page.
async function notFound(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname
  return problemResponse({ code: 'not_found', detail: `No endpoint at ${path}. See /v1/openapi.json for what exists.` }, createId('req'))
}

export { notFound as GET, notFound as HEAD, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE, notFound as OPTIONS }
