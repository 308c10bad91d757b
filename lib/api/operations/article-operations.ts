import { z } from 'zod'
import type { oas31 } from 'zod-openapi'
import { declareOperation, operationPaths, type ProblemCase } from '../openapi/api-operation.ts'
import { referenceErrors } from '../../articles/article-references.ts'
import {
  articleListSchema,
  articlePathSchema,
  articleSchema,
  bulkImportDocumentedSchema,
  bulkImportResultSchema,
  bulkImportSchema,
  createArticleSchema,
  listArticlesQuerySchema,
  maxBulkArticles,
  maxImageUrlsPerImport,
  transitionArticleSchema,
  updateArticleSchema,
  type ArticleRecord,
} from '../../articles/article-schemas.ts'
import { allowedNextStates, apiStatuses, roleMayTransition } from '../../articles/article-status.ts'
import { defaultSearchRankWindow } from '../../articles/search-articles.ts'
import { validationErrors, validationProblem } from '../openapi/validation-examples.ts'

// The article operations: each declaration is what withApi serves and what the reference says.
// Shapes come from article-schemas.ts; this module adds what a schema cannot say: semantics,
// ordering, examples and the failures.

export const articleTags: oas31.TagObject[] = [
  { name: 'Articles', description: "The newsroom's articles: list, read, create and edit." },
  { name: 'Workflow', description: 'Moving an article through review to publication, unpublishing, archiving and restoring.' },
  { name: 'Bulk import', description: 'High-volume imports of wire copy, up to 500 articles per request.' },
]

// ---------------------------------------------------------------------------------------
// Examples. The article itself is the Article schema's own example; failures are produced
// by the real validators, so their messages are the ones clients will see.

const publishedArticle = articleSchema.parse(articleSchema.meta()?.example)

const draftArticle: ArticleRecord = {
  ...publishedArticle,
  article_id: 'art_0mhx3b7d2k4f6h8j0l2n4p6r8t',
  headline: 'Ferry timetable changes from Monday',
  lede: null,
  body: null,
  tags: ['transport'],
  status: 'draft',
  published_at: null,
  url: null,
  created_at: '2026-11-20T10:15:00.000Z',
  updated_at: '2026-11-20T10:15:00.000Z',
  version: 1,
}

const approvedArticle: ArticleRecord = { ...publishedArticle, status: 'approved', published_at: null, url: null, version: 3, updated_at: '2026-11-20T09:10:00.000Z' }

const scheduledArticle: ArticleRecord = { ...approvedArticle, scheduled_publish_at: '2026-12-01T06:00:00.000Z', version: 4, updated_at: '2026-11-20T09:30:00.000Z' }

const notFound: ProblemCase = {
  code: 'not_found',
  when: "No article with this id in the token's newsroom (another newsroom's article included).",
  detail: "No article with id 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom.",
}

const concurrentUpdate: ProblemCase = {
  code: 'concurrent_update',
  when: 'Only under a flood: the change lost 200 races in a row to others writing the same article (a change without If-Match is otherwise last-writer-wins and lands); retry.',
  detail: 'The article is being changed by others right now; retry in a moment.',
}

const unknownDepartment = 'dep_0mhxunknown0000000000000000'
const unknownAuthor = 'usr_0mhxunknown0000000000000000'
const unknownReferences = referenceErrors(
  { department_id: unknownDepartment, author_id: unknownAuthor },
  { unknownDepartments: new Set([unknownDepartment]), unknownAuthors: new Set([unknownAuthor]) },
)

const ifMatchHeader = z.object({
  'If-Match': z
    .string()
    .optional()
    .meta({
      description:
        "The `ETag` you read. If the article has changed since, nothing is changed and the answer is 412. Without it, the last write wins (within the workflow's rules).",
      example: '"4"',
    }),
})

// The path parameter exactly as the route files validate it.
const articlePathParams = articlePathSchema

// The list query as validated, with the descriptions a reader needs per parameter.
const { shape: query } = listArticlesQuerySchema
const documentedListQuery = listArticlesQuerySchema.extend({
  status: query.status.meta({ description: 'Only articles in this state.' }),
  author_id: query.author_id.meta({ description: 'Only articles by this user (`usr_…`).' }),
  department_id: query.department_id.meta({ description: 'Only articles of this department (`dep_…`).' }),
  tag: query.tag.meta({ description: 'Only articles carrying this tag (exact match).' }),
  published_after: query.published_after.meta({ description: 'Only articles published at or after this instant (inclusive).', example: '2026-11-01T00:00:00Z' }),
  published_before: query.published_before.meta({ description: 'Only articles published before this instant (exclusive).', example: '2026-12-01T00:00:00Z' }),
  updated_after: query.updated_after.meta({ description: 'Only articles changed at or after this instant (inclusive): what changed since your last sync.', example: '2026-11-20T09:00:00Z' }),
  updated_before: query.updated_before.meta({ description: 'Only articles changed before this instant (exclusive).', example: '2026-11-21T00:00:00Z' }),
  q: query.q.meta({
    description:
      'Full-text search over headline, lede, tags and body text (markup ignored), web-search syntax: `"exact phrase"`, `-excluded`, `or`. ' +
      'Combines with every other filter; the most relevant come first unless `sort` is given, and each item carries `match`.',
    example: 'council "riverside plan" -budget',
  }),
  limit: query.limit.meta({ description: 'Page size, 1 to 200.' }),
  offset: query.offset.meta({ description: 'How many articles to skip; use the previous page\'s `next_offset`.' }),
})

// ---------------------------------------------------------------------------------------

const workflowTable = [
  '| From | Allowed `to_state` |',
  '|---|---|',
  ...apiStatuses.map((from) => `| \`${from}\` | ${allowedNextStates(from).map((to) => `\`${to}\``).join(', ')} |`),
].join('\n')

const writerMoves = apiStatuses.flatMap((from) =>
  allowedNextStates(from)
    .filter((to) => roleMayTransition('writer', from, to))
    .map((to) => `\`${from}\` → \`${to}\``),
)

export const listArticlesOperation = declareOperation({
  method: 'GET',
  path: '/v1/articles',
  query: listArticlesQuerySchema,
  operationId: 'listArticles',
  summary: 'List articles',
  tags: ['Articles'],
  scope: 'articles:read',
  description: [
    "A page of the newsroom's articles. Filters combine with AND.",
    '',
    '**Order:** most recently published first; articles never published (`published_at` null) come last. Ties are broken by `created_at`, newest first, then by `article_id`, ' +
      'so the order is total and walking the pages with `next_offset` returns every article exactly once (as long as the articles do not change meanwhile).',
    '',
    '**Search:** with `q`, only articles whose headline, lede, tags or body text match (HTML markup never matches), the most relevant first ' +
      '(headline words weigh most, then lede and tags, then body; words close together rank higher), then in the order above. ' +
      "Words are matched with the newsroom's text-search language: `simple` by default (every word as typed, case-insensitive, no stemming), " +
      'or a language such as `english` that also finds word forms. Each item then carries `match.rank` and `match.snippet`. ' +
      `Relevance orders the newest ${defaultSearchRankWindow} matches (newest in the order above); ties in rank keep that order; older matches follow them in the order above. ` +
      `So a search matching at most ${defaultSearchRankWindow} articles is in relevance order throughout, and a common phrase in an archive of millions costs what its newest matches cost. ` +
      `\`total\` is exact up to ${defaultSearchRankWindow} matches; ` +
      'beyond that it may be an estimate, and then the page says `total_is_estimate: true` (`next_offset` still leads to every match).',
    '',
    '**Paging:** `limit` 1 to 200 (default 50) and `offset` 0 or more (default 0); values out of range, and unknown parameters, are a 422. ' +
      '`next_offset` is `offset + limit` while more articles follow, and `null` on the last page. `total` counts every match (for a search it may be an estimate, see Search).',
    '',
    '**Cursors:** every page also has `next_cursor`; send it back as `cursor` (with the same filters and `sort`, and no `offset`) for the next page. ' +
      'A cursor page is found by position in an index, so page 1,000 costs what page 1 costs, and rows that move meanwhile are neither skipped nor repeated. ' +
      'A cursor of another query, another newsroom, or one not made by the service is a 422.',
    '',
    '**Changes feed (`sort=updated_at`):** oldest change first, in the order the changes committed: by the transaction that made each change, then `updated_at`, then `article_id` ' +
      '(articles last changed before the feed took this order, in November 2026, come first, by `updated_at` then `article_id`). ' +
      'Every change to an article (an edit, a workflow move, a scheduled publication firing) raises its `version` and `updated_at` and moves it to the end of the feed, ' +
      'so the article reappears with its new state: an article that was unpublished or archived shows up with that `status`, which tells a mirror to take it down. ' +
      'A change is listed once every write that began before it has ended, normally by the time its writer has the answer, and not before: ' +
      'so a change committed late is never behind a cursor a client already holds, and no version of an article is listed twice. ' +
      'In commit order `updated_at` may step back by the length of a write: resume with `next_cursor`, not with the last `updated_at` seen as `updated_after` ' +
      '(`updated_after` and `updated_before` filter the feed, they do not say where it starts). A cursor issued before this order still resumes exactly. ' +
      '`next_cursor` is set whenever the page has rows and, on an empty page, repeats the cursor sent: keep the last one and poll with it.',
    '',
    '**Caching:** answers carry a strong `ETag` (of the page: it changes when any of its rows, the total or the next cursor does) and `Cache-Control: private, no-cache`. ' +
      'Send the `ETag` back as `If-None-Match` and an unchanged page is a `304` with no body.',
    '',
    '**Keeping a mirror in sync:** (1) initial sync: `GET /v1/articles?sort=updated_at&limit=200`, then follow `next_cursor` until a page comes back with fewer than `limit` rows; keep the last `next_cursor`. ' +
      '(2) every few minutes: `GET /v1/articles?sort=updated_at&limit=200&cursor=<kept cursor>`: the rows are what changed since; upsert them (drop those no longer `published` if you mirror only published ones) and keep the new `next_cursor`. ' +
      '(3) for a single article you hold, `GET /v1/articles/{article_id}` with `If-None-Match: <its ETag>` costs a 304 when it has not changed.',
  ].join('\n'),
  requestParams: { query: documentedListQuery },
  conditional: true,
  success: {
    status: 200,
    description: 'A page of articles.',
    schema: articleListSchema,
    headers: ['ETag'],
    examples: {
      first_page: {
        summary: 'GET /v1/articles?limit=2: the first of several pages',
        value: { items: [publishedArticle, draftArticle], total: 137, limit: 2, offset: 0, next_offset: 2, next_cursor: 'eyJ2IjoxLCJ0IjoidGVuXzBt…In0.k3J9Qm4c2Vx0aW5nX2E' },
      },
      last_page: {
        summary: 'GET /v1/articles?tag=transport: everything fits on one page',
        value: { items: [draftArticle], total: 1, limit: 50, offset: 0, next_offset: null, next_cursor: null },
      },
      changes: {
        summary: 'GET /v1/articles?sort=updated_at&cursor=…: what changed since the cursor',
        value: { items: [publishedArticle], total: 137, limit: 200, offset: 136, next_offset: null, next_cursor: 'eyJ2IjoxLCJ0IjoidGVuXzBt…In0.Zm9yX3RoZV9uZXh0X3Bv' },
      },
      search: {
        summary: 'GET /v1/articles?q=council "riverside plan": the best match first, with a snippet',
        value: {
          items: [{ ...publishedArticle, match: { rank: 0.8, snippet: 'The <mark>council</mark> voted 7–2 for the <mark>riverside</mark> <mark>plan</mark> …' } }],
          total: 1,
          limit: 50,
          offset: 0,
          next_offset: null,
          next_cursor: null,
        },
      },
    },
  },
  problems: [
    {
      code: 'validation_failed',
      when: 'A parameter is out of range, malformed or unknown.',
      detail: 'The request query parameters has invalid fields; see errors.',
      errors: validationErrors(listArticlesQuerySchema, { limit: '500', offset: '-1', stauts: 'draft' }),
    },
  ],
})

export const createArticleOperation = declareOperation({
  method: 'POST',
  path: '/v1/articles',
  body: createArticleSchema,
  operationId: 'createArticle',
  summary: 'Create an article',
  tags: ['Articles'],
  scope: 'articles:write',
  description: [
    'Creates an article in `draft` (the default) or `in-review`. Any other `status` is a 422: articles reach `approved` and `published` only through the transitions endpoint.',
    '',
    '- `headline` is required, 1 to 300 characters; surrounding whitespace is trimmed.',
    "- `tags`: at most 50, each 1 to 64 characters; duplicates are removed.",
    "- `department_id` must be one of the newsroom's departments.",
    "- `author_id` defaults to the token's owner; if sent, it must be an active user of the newsroom.",
    '- `body` is HTML and is sanitised on write by one allow-list (see the `body` field for what survives); the stored body is what readers and webhooks get. When something was removed, the response carries the stored body and a `Warning: 299 - "body sanitised: removed …"` header (bulk import: `body_removed` on the item).',
    '',
    'The answer is `201` with the article, its `Location` and its `ETag`. An `article.created` event is sent to subscribed webhooks.',
  ].join('\n'),
  requestBody: {
    examples: {
      minimal: { summary: 'Only the headline', value: { headline: 'Ferry timetable changes from Monday' } },
      complete: {
        summary: 'Every field',
        value: {
          headline: 'Council approves riverside plan',
          lede: 'The vote ends a decade of debate.',
          body: '<p>The council voted 7–2…</p>',
          department_id: publishedArticle.department_id,
          tags: ['local', 'politics'],
          author_id: publishedArticle.author_id,
          status: 'draft',
        },
      },
    },
  },
  success: {
    status: 201,
    description: 'The article was created.',
    schema: articleSchema,
    headers: ['Location', 'ETag'],
    examples: { created: { summary: 'A new draft', value: draftArticle } },
  },
  problems: [
    validationProblem('A field is invalid or unknown, a `status` other than draft or in-review, or a department or author outside the newsroom.', validationErrors(createArticleSchema, { headline: ' ', status: 'published', headlien: 'Typo' }), 'invalid_fields'),
    validationProblem('A field is invalid or unknown, a `status` other than draft or in-review, or a department or author outside the newsroom.', unknownReferences, 'unknown_references'),
  ],
})

export const getArticleOperation = declareOperation({
  method: 'GET',
  path: '/v1/articles/{article_id}',
  params: articlePathSchema,
  operationId: 'getArticle',
  summary: 'Get an article',
  tags: ['Articles'],
  scope: 'articles:read',
  description:
    'One article of the newsroom, with its `ETag` for a later conditional PATCH or transition. Send the `ETag` you hold as `If-None-Match`: if the article has not changed the answer is `304` with no body (`Cache-Control: private, no-cache`).',
  requestParams: { path: articlePathParams },
  conditional: true,
  success: {
    status: 200,
    description: 'The article.',
    schema: articleSchema,
    headers: ['ETag'],
    examples: { published: { summary: 'A published article', value: publishedArticle } },
  },
  problems: [notFound],
})

export const updateArticleOperation = declareOperation({
  method: 'PATCH',
  path: '/v1/articles/{article_id}',
  params: articlePathSchema,
  body: updateArticleSchema,
  operationId: 'updateArticle',
  summary: 'Update an article',
  tags: ['Articles'],
  scope: 'articles:write',
  description: [
    'Changes the fields sent and keeps the others. Send `null` to clear `lede`, `body` or `department_id`. Field rules are those of creation, including the sanitising of `body` and its `Warning` header.',
    '',
    '`status` cannot be patched (422): move the article with `POST /v1/articles/{article_id}/transitions`. Archived articles are read-only (409 `article_archived`) until restored to draft.',
    '',
    'Send the `ETag` you read as `If-Match` to make sure you do not overwrite someone else\'s change (412 if you would, saying who changed what, and when). Every change increases `version`, and with it the `ETag`. ' +
      'An `article.updated` event is sent to subscribed webhooks.',
  ].join('\n'),
  requestParams: { path: articlePathParams, header: ifMatchHeader },
  requestBody: {
    examples: {
      headline: { summary: 'Change the headline', value: { headline: 'Council approves riverside plan after decade of debate' } },
      clear: { summary: 'Clear the lede and retag', value: { lede: null, tags: ['local', 'planning'] } },
    },
  },
  success: {
    status: 200,
    description: 'The updated article.',
    schema: articleSchema,
    headers: ['ETag'],
    examples: { updated: { summary: 'The headline changed', value: { ...draftArticle, headline: 'Ferry timetable changes from Monday 1 December', version: 2, updated_at: '2026-11-20T10:40:00.000Z' } } },
  },
  problems: [
    notFound,
    {
      code: 'article_archived',
      when: 'The article is archived, and archived articles are read-only.',
      detail: 'Archived articles are read-only; restore it to draft first.',
      extra: { from_state: 'archived' },
    },
    concurrentUpdate,
    {
      code: 'precondition_failed',
      when: '`If-Match` does not match the current `ETag`: the article changed since you read it. The detail says what happened after the version you sent, who did it and when.',
      detail:
        'This article changed after the version you saw (3): it was edited (headline, text) by Edith Hale at 22:41 UTC; it is now in review, at version 4. Look at it again and decide whether your change still applies.',
    },
    validationProblem('A field is invalid or unknown, `status` was sent, or a department or author is outside the newsroom.', validationErrors(updateArticleSchema, { status: 'published', tags: ['x'.repeat(65)] })),
  ],
})

export const transitionArticleOperation = declareOperation({
  method: 'POST',
  path: '/v1/articles/{article_id}/transitions',
  params: articlePathSchema,
  body: transitionArticleSchema,
  operationId: 'transitionArticle',
  summary: 'Move an article through the workflow',
  tags: ['Workflow'],
  scope: 'articles:write',
  description: [
    'Moves the article to `to_state` and answers with the article. The workflow allows these moves; any other is a 409 `invalid_transition` whose body lists `from_state` and `allowed_to_states`:',
    '',
    workflowTable,
    '',
    '**Publishing** (`approved` → `published`) sets `published_at` and the public `url`. `publish_at` is accepted only with `to_state: "published"`:',
    '',
    '- in the future, it **schedules** the publication: the article stays `approved` with `scheduled_publish_at` set, and the service publishes it at that time;',
    '- now or in the past (or left out), the article is published at once.',
    '',
    'Any later transition cancels a pending schedule. **Unpublishing** (`published` → `draft`) clears `url`; `published_at` keeps when it last went out. ' +
      '**Archiving** makes the article read-only; **restoring** (`archived` → `draft`) makes it editable again.',
    '',
    "**Roles:** the token acts as its owner. Editors and admins make every move above on any article; a writer's token may only make " +
      `${writerMoves.join(' and ')}, and only on articles its owner wrote (403 \`forbidden\` otherwise).`,
    '',
    '**Events:** every move sends `workflow.transitioned` (`article_id`, `from_state`, `to_state`, `actor_id`); publishing also sends `article.published`, ' +
      'unpublishing `article.unpublished`, archiving `article.archived`.',
    '',
    'Send the `ETag` you read as `If-Match` to make the move only from the version you saw. If the article changed since, nothing moves: the answer is a 412 ' +
      '`precondition_failed` whose `detail` says what happened after your version, who did it and when (e.g. that it was published meanwhile), ' +
      'so a move meant for an article in review never takes a live one off the site. Read it again and decide. ' +
      'Send `expected_state` (the state you saw) as well, or instead, to refuse the move the same way when the article is no longer in that state.',
  ].join('\n'),
  requestParams: { path: articlePathParams, header: ifMatchHeader },
  requestBody: {
    examples: {
      submit: { summary: 'Submit a draft for review', value: { to_state: 'in-review' } },
      approve: { summary: 'Approve it', value: { to_state: 'approved' } },
      publish: { summary: 'Publish now', value: { to_state: 'published' } },
      schedule: { summary: 'Publish on 1 December at 06:00 UTC', value: { to_state: 'published', publish_at: '2026-12-01T06:00:00Z' } },
    },
  },
  success: {
    status: 200,
    description: 'The article after the move (or with its publication scheduled).',
    schema: articleSchema,
    headers: ['ETag'],
    examples: {
      published: { summary: 'Published now', value: publishedArticle },
      scheduled: { summary: 'Scheduled: still approved, with scheduled_publish_at', value: scheduledArticle },
    },
  },
  problems: [
    {
      code: 'forbidden',
      when: "The token's owner may not make this move: their role does not allow it (e.g. a writer approving), or a writer moves an article someone else wrote.",
      detail: 'A writer cannot move an article from in-review to approved; ask an editor.',
    },
    notFound,
    {
      code: 'invalid_transition',
      when: 'The workflow does not allow this move from the current state.',
      detail: `An article cannot move from draft to published. From draft it can move to: ${allowedNextStates('draft').join(', ')}.`,
      extra: { from_state: 'draft', allowed_to_states: allowedNextStates('draft') },
    },
    concurrentUpdate,
    {
      code: 'precondition_failed',
      when: '`If-Match` does not match the current `ETag`: the article changed since you read it, so the move is not made. The detail says what happened after the version you sent, who did it and when.',
      detail:
        'This article changed after the version you saw (5): it was approved and published by Edith Hale at 22:41 UTC; it is now published, at version 7. Look at it again and decide whether your change still applies.',
    },
    validationProblem('`to_state` is missing or not a state, `publish_at` is not a timestamp, or `publish_at` came without `to_state: "published"`.', [
      { field: 'publish_at', message: 'publish_at goes only with to_state = published.' },
    ]),
  ],
})

export const bulkImportOperation = declareOperation({
  method: 'POST',
  path: '/v1/articles/bulk',
  body: bulkImportSchema,
  // A wire feed's batch of up to 500 articles with their bodies.
  maxBodyBytes: 32 * 1024 * 1024,
  operationId: 'bulkImportArticles',
  summary: 'Import articles in bulk',
  tags: ['Bulk import'],
  scope: 'articles:write',
  description: [
    `Creates or updates 1 to ${maxBulkArticles} articles in one request, for high-volume imports such as daily wire copy. ` +
      `More than ${maxBulkArticles} is a 413 \`too_many_items\` and nothing is stored; the body may be up to 32 MiB.`,
    '',
    '**Each item is judged on its own**: the valid ones are stored and the invalid ones reported, so one bad item never sinks the rest. ' +
      'The answer is `200` even when some or all items failed: check `failed` and each result. Items take the fields of article creation, plus `external_id`.',
    '',
    '**Images**: an item names its featured image as `featured_media_id` (an image of the newsroom\'s media library; an unknown id fails the item) or as `featured_image_url`, a wire photo ' +
      'fetched into the library with the rules of `POST /v1/media`\'s `source_url` (https, public address, size and time limits). Each URL is fetched once per request, and the same bytes are one media record ' +
      'whichever URL or item brought them (the library keeps one record per content hash), so a feed sending one photo with ten stories makes one record. A URL that cannot be fetched fails only the items naming it. ' +
      `A \`featured_image_url\` adds to the media library, so it needs a key with \`media:write\` (without it, those items fail); one request may name at most ${maxImageUrlsPerImport} different URLs (items naming more fail: send them in another request). ` +
      'The fetches run a few at a time and end by an overall deadline (`MEDIA_IMPORT_FETCH_DEADLINE_MS`, 60 s by default): items whose URL has not answered by then fail, naming it, and nothing of theirs is stored. ' +
      'The result of an item with an image carries its `featured_media_id`. Fetched images have no alt text yet: publishing the article asks for it (`422 media_not_publishable`).',
    '',
    "**`external_id`** is the wire service's id for the item, unique in the newsroom. Sending an `external_id` the newsroom already has **updates** that article instead of creating a duplicate, " +
      'so re-sending a feed is safe. On such an update `headline` is replaced; `lede`, `body`, `department_id` and `tags` are replaced when sent and kept when left out or null; ' +
      '`status` and `author_id` stay as the newsroom set them. An archived article is not updated (its item fails). One `external_id` may appear only once per request.',
    '',
    '`results` has one entry per item, in request order, with its `index`: `created` or `updated` with the `article_id`, or `failed` with `errors`. ' +
      'Each stored item sends an `article.created` or `article.updated` event.',
    '',
    '**Concurrent imports** may share `external_id`s in any order: each lands as if it had run before or after the others (one of them creates an article, the rest update it). ' +
      'In the rare case that they keep colliding, the service tries again a few times and then answers `503 write_conflict` with `Retry-After`, having stored nothing.',
  ].join('\n'),
  requestBody: {
    schema: bulkImportDocumentedSchema,
    examples: {
      wire: {
        summary: "Three wire items, one naming a department the newsroom does not have",
        value: {
          articles: [
            { external_id: 'AP-2026-11-20-0042', headline: 'Storm closes coastal roads', tags: ['weather'] },
            { external_id: 'AP-2026-11-20-0043', headline: 'Markets open higher', body: '<p>Shares rose…</p>', status: 'in-review' },
            { external_id: 'AP-2026-11-20-0044', headline: 'Transfer window opens', department_id: unknownDepartment },
          ],
        },
      },
    },
  },
  success: {
    status: 200,
    description: 'What happened to each item. Stored items are committed even when others failed.',
    schema: bulkImportResultSchema,
    examples: {
      mixed: {
        summary: 'One new, one re-sent (updated), one failed',
        value: {
          created: 1,
          updated: 1,
          failed: 1,
          results: [
            { index: 0, status: 'created', article_id: 'art_0mhx4c1e3g5i7k9m1o3q5s7u9w', external_id: 'AP-2026-11-20-0042' },
            { index: 1, status: 'updated', article_id: 'art_0mhx1a2b3c4d5e6f7g8h9i0j1k', external_id: 'AP-2026-11-20-0043' },
            { index: 2, status: 'failed', external_id: 'AP-2026-11-20-0044', errors: referenceErrors({ department_id: unknownDepartment }, { unknownDepartments: new Set([unknownDepartment]), unknownAuthors: new Set() }) },
          ],
        },
      },
    },
  },
  problems: [
    {
      code: 'too_many_items',
      when: `More than ${maxBulkArticles} articles; nothing was stored.`,
      detail: `A bulk import takes at most ${maxBulkArticles} articles; this one has 612. Split it; nothing was stored.`,
    },
    {
      code: 'write_conflict',
      when: 'Concurrent imports sharing these `external_id`s kept colliding: the import was tried several times and nothing was stored; retry after `Retry-After` seconds.',
      detail: 'Other requests were changing the same records at the same moment; the bulk import was tried 5 times and nothing was stored. Retry shortly.',
    },
    validationProblem(
      'The envelope is wrong: `articles` missing, empty or not an array, or a field next to it. (Invalid items are reported in the 200 answer instead.)',
      validationErrors(bulkImportSchema, { articles: [], source: 'AP' }),
    ),
  ],
})

export const articlePaths = operationPaths([listArticlesOperation, createArticleOperation, getArticleOperation, updateArticleOperation, transitionArticleOperation, bulkImportOperation])

/** The examples above, for the tests that check them against the schemas. */
export const articleExamples = { publishedArticle, draftArticle, approvedArticle, scheduledArticle }
