import type { NewsroomClient } from './create-client.ts'
import { pagesOf, unwrap } from './paging.ts'
import type { paths } from './schema.ts'

/**
 * Resource helpers beside the path-string calls: `api.articles.get(id)` instead of
 * `unwrap(await api.GET('/v1/articles/{article_id}', …))`. Each answers the data or throws a
 * NewsroomApiError; a list walks its pages itself: `for await (const article of api.articles.list({ status: 'published' }))`.
 */
type Query<Path extends keyof paths, Method extends 'get'> = paths[Path][Method] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
type Body<Path extends keyof paths, Method extends 'post' | 'patch'> = paths[Path][Method] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
type ListQuery<Path extends keyof paths> = Omit<Query<Path, 'get'>, 'cursor' | 'offset'>

export function resourceHelpers(api: NewsroomClient) {
  return {
    articles: {
      /** Every article the query matches, page after page (by cursor; a search, `q`, by offset). */
      list: (query: ListQuery<'/v1/articles'> = {}) => pagesOf((paging) => api.GET('/v1/articles', { params: { query: { ...query, ...paging } } })),
      get: async (articleId: string) => unwrap(await api.GET('/v1/articles/{article_id}', { params: { path: { article_id: articleId } } })),
      create: async (body: Body<'/v1/articles', 'post'>) => unwrap(await api.POST('/v1/articles', { body })),
      update: async (articleId: string, body: Body<'/v1/articles/{article_id}', 'patch'>) => unwrap(await api.PATCH('/v1/articles/{article_id}', { params: { path: { article_id: articleId } }, body })),
      transition: async (articleId: string, body: Body<'/v1/articles/{article_id}/transitions', 'post'>) =>
        unwrap(await api.POST('/v1/articles/{article_id}/transitions', { params: { path: { article_id: articleId } }, body })),
    },
    webhooks: {
      list: (query: ListQuery<'/v1/webhooks'> = {}) => pagesOf((paging) => api.GET('/v1/webhooks', { params: { query: { ...query, ...paging } } })),
      get: async (webhookId: string) => unwrap(await api.GET('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } })),
      create: async (body: Body<'/v1/webhooks', 'post'>) => unwrap(await api.POST('/v1/webhooks', { body })),
      update: async (webhookId: string, body: Body<'/v1/webhooks/{webhook_id}', 'patch'>) => unwrap(await api.PATCH('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } }, body })),
      delete: async (webhookId: string): Promise<void> => {
        const answer = await api.DELETE('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } })
        if (!answer.response.ok) unwrap(answer as { data?: unknown; error?: unknown; response: Response })
      },
      test: async (webhookId: string, body: Body<'/v1/webhooks/{webhook_id}/test', 'post'> = {}) => unwrap(await api.POST('/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhookId } }, body })),
      rotateSecret: async (webhookId: string) => unwrap(await api.POST('/v1/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: webhookId } } })),
      deliveries: (webhookId: string) => pagesOf((paging) => api.GET('/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: webhookId }, query: paging } })),
    },
    events: {
      list: (query: ListQuery<'/v1/events'> = {}) => pagesOf((paging) => api.GET('/v1/events', { params: { query: { ...query, ...paging } } })),
      get: async (eventId: string) => unwrap(await api.GET('/v1/events/{event_id}', { params: { path: { event_id: eventId } } })),
    },
    departments: {
      list: async () => unwrap(await api.GET('/v1/departments')).items,
    },
  }
}

export type ResourceHelpers = ReturnType<typeof resourceHelpers>
