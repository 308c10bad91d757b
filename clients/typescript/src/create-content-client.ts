import createClient, { type Client } from 'openapi-fetch'
import { resilientFetch, type ResilientFetchOptions } from './resilient-fetch.ts'
import type { paths } from './content-schema.ts'

export type ContentClient = Client<paths>

/**
 * A typed client of the public content API (/content/v1): published articles for a newsroom's
 * own site or app, typed from the content API's OpenAPI document (src/content-schema.ts,
 * generated). The content key goes in the `X-Content-Key` header; sent through resilientFetch,
 * so a page already held is revalidated with its ETag.
 */
export function createContentClient(options: { baseUrl: string; contentKey: string } & ResilientFetchOptions): ContentClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: resilientFetch(options) })
  client.use({
    onRequest({ request }) {
      request.headers.set('X-Content-Key', options.contentKey)
      return request
    },
  })
  return client
}
