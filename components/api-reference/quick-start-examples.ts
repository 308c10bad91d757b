/**
 * The quick start of /docs/api: the five tasks integrations start with, each as a curl command
 * and as a TypeScript snippet with the typed client (clients/typescript). Kept as data so that
 * the page shows exactly what tests/docs/quick-start-examples.integration.test.ts runs against
 * the /v1 handlers: every snippet reads NEWSROOM_URL and NEWSROOM_TOKEN (and ARTICLE_ID,
 * WEBHOOK_SECRET where it says so) from the environment.
 */
export type QuickStartExample = { id: string; title: string; scope: string; text: string; curl: string; client: string }

const clientImport = "import { createNewsroomClient, unwrap } from './clients/typescript/src/index.ts'\n\nconst api = createNewsroomClient({ baseUrl: process.env.NEWSROOM_URL!, token: process.env.NEWSROOM_TOKEN! })\n"

export const quickStartSetup = 'export NEWSROOM_URL=https://newsroom.example.com NEWSROOM_TOKEN=nrs_…   # a key from Settings → API Keys'

export const quickStartExamples: QuickStartExample[] = [
  {
    id: 'list-published',
    title: 'List the published articles',
    scope: 'articles:read',
    text: 'Newest publication first, 10 a page; follow `next_offset` (or `next_cursor`) for the next page.',
    curl: `curl --fail-with-body -sS "$NEWSROOM_URL/v1/articles?status=published&limit=10" \\
  -H "Authorization: Bearer $NEWSROOM_TOKEN"`,
    client: `${clientImport}
const page = unwrap(await api.GET('/v1/articles', { params: { query: { status: 'published', limit: 10 } } }))
for (const article of page.items) console.log(article.published_at, article.headline, article.url)`,
  },
  {
    id: 'create-article',
    title: 'Create an article',
    scope: 'articles:write',
    text: 'A draft unless `status` says `in-review`. Send an `Idempotency-Key` so a retry never makes a second one (the client sends one with every POST).',
    curl: `curl --fail-with-body -sS -X POST "$NEWSROOM_URL/v1/articles" \\
  -H "Authorization: Bearer $NEWSROOM_TOKEN" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: $(uuidgen 2>/dev/null || cat /proc/sys/kernel/random/uuid)" \\
  -d '{"headline": "Harbour festival returns", "lede": "After five years, the boats are back.", "tags": ["local"], "status": "in-review"}'`,
    client: `${clientImport}
const article = unwrap(await api.POST('/v1/articles', { body: { headline: 'Harbour festival returns', lede: 'After five years, the boats are back.', tags: ['local'], status: 'in-review' } }))
console.log(article.article_id, article.status)`,
  },
  {
    id: 'publish-article',
    title: 'Approve and publish an article',
    scope: 'articles:write',
    text: 'Publishing is a move through the workflow: `in-review` → `approved` → `published` (set `ARTICLE_ID` to an article in review). Add `publish_at` to schedule it instead.',
    curl: `for state in approved published; do
  curl --fail-with-body -sS -X POST "$NEWSROOM_URL/v1/articles/$ARTICLE_ID/transitions" \\
    -H "Authorization: Bearer $NEWSROOM_TOKEN" \\
    -H "Content-Type: application/json" \\
    -d "{\\"to_state\\": \\"$state\\"}"
done`,
    client: `${clientImport}
const path = { article_id: process.env.ARTICLE_ID! }
for (const to_state of ['approved', 'published'] as const) {
  const article = unwrap(await api.POST('/v1/articles/{article_id}/transitions', { params: { path }, body: { to_state } }))
  console.log(article.status, article.url)
}`,
  },
  {
    id: 'subscribe-webhook',
    title: 'Subscribe to publications by webhook',
    scope: 'webhooks:manage',
    text: 'Each `article.published` is POSTed to your `url`, signed with your secret (set `WEBHOOK_SECRET`, 16 characters or more); add `department_ids`, `tags` or `statuses` to narrow it. Verify deliveries with `verifyWebhook` from the client.',
    curl: `curl --fail-with-body -sS -X POST "$NEWSROOM_URL/v1/webhooks" \\
  -H "Authorization: Bearer $NEWSROOM_TOKEN" \\
  -H "Content-Type: application/json" \\
  -d "{\\"url\\": \\"https://hooks.example.com/newsroom\\", \\"events\\": [\\"article.published\\"], \\"secret\\": \\"$WEBHOOK_SECRET\\"}"`,
    client: `${clientImport}
const webhook = unwrap(await api.POST('/v1/webhooks', { body: { url: 'https://hooks.example.com/newsroom', events: ['article.published'], secret: process.env.WEBHOOK_SECRET! } }))
console.log(webhook.webhook_id, webhook.status)`,
  },
  {
    id: 'catch-up-events',
    title: 'Catch up on events',
    scope: 'events:read',
    text: 'Every event of the last 30 days, oldest first, in the envelope the webhooks carry. Keep the last `next_cursor` and ask with it (`&cursor=…`) next time: you get what happened since.',
    curl: `curl --fail-with-body -sS "$NEWSROOM_URL/v1/events?sort=created_at&limit=100" \\
  -H "Authorization: Bearer $NEWSROOM_TOKEN"`,
    client: `import { createNewsroomClient, syncFeed } from './clients/typescript/src/index.ts'

const api = createNewsroomClient({ baseUrl: process.env.NEWSROOM_URL!, token: process.env.NEWSROOM_TOKEN! })
const kept: string | undefined = undefined // the cursor this returned last time
const next = await syncFeed((paging) => api.GET('/v1/events', { params: { query: { sort: 'created_at', limit: 100, ...paging } } }), kept, (event) => {
  console.log(event.occurred_at, event.event, event.event_id)
})
console.log('keep', next)`,
  },
]
