import { declareOperation, operationPaths, type ProblemCase } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'
import { listRevisionsQuerySchema, revisionListSchema, revisionPathSchema, revisionSchema, type RevisionRecord } from '../../articles/revision-schemas.ts'

const revision: RevisionRecord = {
  revision_id: 'rev_3f1c9a0e6b2d4c7a8e5f1a2b3c4d5e6f',
  article_id: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  number: 2,
  version: 3,
  actor: { id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e', name: 'Lois Lane' },
  created_at: '2026-11-20T09:10:00.000Z',
  fields: ['headline', 'body'],
  headline: 'Council approves riverside plan',
  lede: 'The vote ends a decade of debate.',
  body: '<p>The council voted 7–2…</p>',
  department_id: 'dep_0mhx2k1s9q3v8w4t6y1z2a3b4d',
  tags: ['local', 'politics'],
  author_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e',
  restored_from_revision_id: null,
  restored_from_revision_number: null,
}

const notFound: ProblemCase = {
  code: 'not_found',
  when: "No article (or no revision of it) with this id in the token's newsroom.",
  detail: "No revision with id 'rev_3f1c9a0e6b2d4c7a8e5f1a2b3c4d5e6f' exists in this newsroom.",
}

export const listArticleRevisionsOperation = declareOperation({
  method: 'GET',
  path: '/v1/articles/{article_id}/revisions',
  params: revisionPathSchema.pick({ article_id: true }),
  query: listRevisionsQuerySchema,
  operationId: 'listArticleRevisions',
  summary: 'List an article’s revisions',
  tags: ['Articles'],
  scope: 'articles:read',
  description: [
    'Every change to the article’s content (creation, PATCH, a portal save, a bulk import that changed something, a restore) is a revision, stored with the change itself. Each has its own `number` (1, 2, 3… without gaps) and the article `version` it produced; a restore names the revision it put back in `restored_from_revision_id` and `restored_from_revision_number`. ' +
      'Newest first. A change that sets no content field (a transition, a bulk re-import of identical content) makes none. Revisions are kept for as long as the article is.',
    '',
    '**Paging:** `limit` 1 to 100 (default 20) and `offset` (default 0); `next_offset` is null on the last page. Every page also has `next_cursor`: send it back as `cursor` (same filters, no `offset`) for the next page, found by position rather than by counting, so a deep page costs what the first does; null on the last page.',
  ].join('\n'),
  requestParams: { path: revisionPathSchema.pick({ article_id: true }), query: listRevisionsQuerySchema },
  success: {
    status: 200,
    description: 'A page of revisions, newest first.',
    schema: revisionListSchema,
    examples: { page: { summary: 'Three revisions, one page', value: { items: [revision], total: 3, limit: 1, offset: 0, next_offset: 1, next_cursor: 'eyJ2IjoxLCJ0IjoidGVuXzBt…In0.c2Vjb25kX3BhZ2VfY3Vyc29y' } } },
  },
  problems: [
    { ...notFound, when: "No article with this id in the token's newsroom.", detail: "No article with id 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom." },
    {
      code: 'validation_failed',
      when: 'limit or offset out of range, or an unknown parameter.',
      detail: 'The request query parameters has invalid fields; see errors.',
      errors: validationErrors(listRevisionsQuerySchema, { limit: '500' }),
    },
  ],
})

export const getArticleRevisionOperation = declareOperation({
  method: 'GET',
  path: '/v1/articles/{article_id}/revisions/{revision_id}',
  params: revisionPathSchema,
  operationId: 'getArticleRevision',
  summary: 'Get one revision of an article',
  tags: ['Articles'],
  scope: 'articles:read',
  description: 'The article’s content as this revision left it, with who made the change, when, and which fields it set.',
  requestParams: { path: revisionPathSchema },
  success: { status: 200, description: 'The revision.', schema: revisionSchema, examples: { revision: { summary: 'A revision that changed headline and body', value: revision } } },
  problems: [notFound],
})

export const revisionPaths = operationPaths([listArticleRevisionsOperation, getArticleRevisionOperation])
