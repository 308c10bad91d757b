import { createNewsroomClient, unwrap, verifyWebhook } from '../src/index.ts'

const api = createNewsroomClient({ baseUrl: process.env.NEWSROOM_URL!, token: process.env.NEWSROOM_TOKEN! })
const { items } = unwrap(await api.GET('/v1/articles', { params: { query: { status: 'published', limit: 10 } } }))
const article = unwrap(await api.POST('/v1/articles', { body: { headline: 'Harbour festival returns', status: 'in-review' } }))
const path = { article_id: article.article_id }
for (const to_state of ['approved', 'published'] as const) unwrap(await api.POST('/v1/articles/{article_id}/transitions', { params: { path }, body: { to_state } }))

// In your webhook receiver: the raw body as it arrived, its headers, the secret you subscribed with.
export const verify = (rawBody: string, headers: Headers) => verifyWebhook<{ event: string; data: unknown }>(rawBody, headers, process.env.WEBHOOK_SECRET!)
export { article, items }
