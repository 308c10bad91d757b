import createClient, { type Client } from 'openapi-fetch'
import { resilientFetch, type ResilientFetchOptions } from './resilient-fetch.ts'
import { resourceHelpers, type ResourceHelpers } from './resources.ts'
import type { paths } from './schema.ts'

export type NewsroomClient = Client<paths>

/** The path-string calls (`api.GET('/v1/articles', …)`) and, beside them, the resource helpers (`api.articles.list()`). */
export type NewsroomApi = NewsroomClient & ResourceHelpers

/**
 * A typed client of the newsroom's /v1 API: every path, parameter and answer typed from the
 * service's OpenAPI document (src/schema.ts, generated), sent through resilientFetch.
 */
export function createNewsroomClient(options: { baseUrl: string; token: string } & ResilientFetchOptions): NewsroomApi {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: resilientFetch(options) })
  client.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${options.token}`)
      return request
    },
  })
  return Object.assign(client, resourceHelpers(client))
}
