import type { NewsroomClient } from './create-client.ts'
import { pagesOf, unwrap } from './paging.ts'
import type { components, paths } from './schema.ts'

/**
 * Resource helpers beside the path-string calls: `api.articles.get(id)` instead of
 * `unwrap(await api.GET('/v1/articles/{article_id}', …))`. Each answers the data or throws a
 * NewsroomApiError; a list walks its pages itself: `for await (const article of api.articles.list({ status: 'published' }))`.
 */
type Query<Path extends keyof paths, Method extends 'get'> = paths[Path][Method] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
type Body<Path extends keyof paths, Method extends 'post' | 'patch'> = paths[Path][Method] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
/** The fields an upload may carry beside the file (multipart text parts). */
type MediaFields = Omit<components['schemas']['MediaUpload'], 'file'>
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
    media: {
      /** Every image the query matches, newest first, page after page. */
      list: (query: ListQuery<'/v1/media'> = {}) => pagesOf((paging) => api.GET('/v1/media', { params: { query: { ...query, ...paging } } })),
      get: async (mediaId: string) => unwrap(await api.GET('/v1/media/{media_id}', { params: { path: { media_id: mediaId } } })),
      update: async (mediaId: string, body: Body<'/v1/media/{media_id}', 'patch'>) => unwrap(await api.PATCH('/v1/media/{media_id}', { params: { path: { media_id: mediaId } }, body })),
      delete: async (mediaId: string): Promise<void> => {
        const answer = await api.DELETE('/v1/media/{media_id}', { params: { path: { media_id: mediaId } } })
        if (!answer.response.ok) unwrap(answer as { data?: unknown; error?: unknown; response: Response })
      },
      /**
       * Uploads an image (a Blob or File: its bytes, with `fileName` as its name) as
       * `multipart/form-data`, with the record's fields beside it. Bytes the newsroom already has
       * answer the existing record.
       */
      upload: async (file: Blob, fields: MediaFields = {}, fileName = file instanceof File ? file.name : 'upload') => {
        const form = new FormData()
        form.append('file', file, fileName)
        for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) form.append(name, String(value))
        // The body is the form itself; openapi-fetch leaves the Content-Type (and boundary) to fetch.
        return unwrap(await api.POST('/v1/media', { body: form as never, bodySerializer: (body: unknown) => body as FormData }))
      },
      /** Adds the image at an https `source_url` (a wire photo), fetched by the service. */
      fromUrl: async (body: components['schemas']['CreateMediaFromUrl']) => unwrap(await api.POST('/v1/media', { body })),
    },
    departments: {
      list: async () => unwrap(await api.GET('/v1/departments')).items,
    },
  }
}

export type ResourceHelpers = ReturnType<typeof resourceHelpers>
