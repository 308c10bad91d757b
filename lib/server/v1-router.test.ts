import { describe, expect, it } from 'vitest'
import type { ApiRequest } from '../api/api-request.ts'
import type { V1Route } from './v1-route-modules.ts'
import { createV1Router } from './v1-router.ts'

// Each route answers with its name and the params it was given, so a test reads which one matched.
function route(path: string): V1Route {
  const segments = path.split('/').filter(Boolean)
  return {
    segments,
    module: { GET: async (_request, context) => Response.json({ route: path, params: await context.params }) },
  }
}

const router = createV1Router([
  route('/v1/[...path]'),
  route('/v1/articles/[article_id]'),
  route('/v1/articles/[article_id]/transitions'),
  route('/v1/articles/search'),
  route('/v1/articles'),
])

async function ask(path: string): Promise<{ route: string; params: Record<string, unknown> }> {
  const url = new URL(path, 'http://localhost')
  const request: ApiRequest = { method: 'GET', url: url.href, headers: { get: () => null }, body: null }
  return (await router(request, url)).json() as Promise<{ route: string; params: Record<string, unknown> }>
}

describe('the /v1 router', () => {
  it('prefers a static segment, then a dynamic one, then the catch-all', async () => {
    expect(await ask('/v1/articles/search')).toEqual({ route: '/v1/articles/search', params: {} })
    expect(await ask('/v1/articles/art_1')).toEqual({ route: '/v1/articles/[article_id]', params: { article_id: 'art_1' } })
    expect(await ask('/v1/articles/art_1/transitions')).toEqual({ route: '/v1/articles/[article_id]/transitions', params: { article_id: 'art_1' } })
    expect(await ask('/v1/articles')).toEqual({ route: '/v1/articles', params: {} })
    expect(await ask('/v1/articles/art_1/nothing/here')).toEqual({ route: '/v1/[...path]', params: { path: ['articles', 'art_1', 'nothing', 'here'] } })
  })

  it('decodes percent-encoded segments, and hands over a malformed one as sent', async () => {
    expect((await ask('/v1/articles/caf%C3%A9')).params).toEqual({ article_id: 'café' })
    expect((await ask('/v1/articles/100%')).params).toEqual({ article_id: '100%' })
    expect((await ask('/v1/x%2Fy/%E2%9C%93')).params).toEqual({ path: ['x/y', '✓'] })
  })
})
