import type { ZodOpenApiPathsObject } from 'zod-openapi'
import { declareOperation, operationPaths } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'
import { headerRefs } from '../openapi/response-headers.ts'
import { problemExample } from '../openapi/problem-schema.ts'
import { articleExamples } from './article-operations.ts'
import { articlePathSchema, articleSchema } from '../../articles/article-schemas.ts'
import {
  createPreviewLinkSchema,
  mintedPreviewLinkSchema,
  previewLinkListSchema,
  previewLinkPathSchema,
  type MintedPreviewLink,
} from '../../articles/preview-link-schemas.ts'

const minted: MintedPreviewLink = {
  preview_link_id: 'prv_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  article_id: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  revision_id: null,
  expires_at: '2026-11-21T09:30:00.000Z',
  created_at: '2026-11-20T09:30:00.000Z',
  created_by: { id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e', name: 'Edith Hale' },
  token: 'nrp_q7Vh3mK9xR2pL8wN4tY6bC1dF5gJ0sA3eZ7uI9oP2kM',
  url: 'https://dailyplanet.example/preview?token=nrp_q7Vh3mK9xR2pL8wN4tY6bC1dF5gJ0sA3eZ7uI9oP2kM',
}
const { token: _token, url: _url, ...listed } = minted
const previewedDraft = articleExamples.draftArticle

const notFound = {
  code: 'not_found' as const,
  when: "No article (or no such preview link of it) in the token's newsroom.",
  detail: "No article with id 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom.",
}

export const createPreviewLinkOperation = declareOperation({
  method: 'POST',
  path: '/v1/articles/{article_id}/preview-links',
  params: articlePathSchema,
  body: createPreviewLinkSchema,
  operationId: 'createPreviewLink',
  summary: 'Mint a draft preview link',
  tags: ['Articles'],
  scope: 'articles:write',
  description: [
    "Mints a token that shows the article on the newsroom's own site before it is published: the site's preview page exchanges it, with no API key, at `GET /v1/preview/{token}`. " +
      'The token is shown **once**, here; the service stores only its hash. It opens exactly this article, as it is when opened (or the revision named), until `expires_at` or until revoked.',
    '',
    '`url` is the site’s preview page for it (`<public_site_url>/preview?token=…`). Minting is recorded in the audit log.',
  ].join('\n'),
  requestParams: { path: articlePathSchema },
  requestBody: { examples: { hour: { summary: 'A link for an hour', value: { expires_in: 3600 } } } },
  success: { status: 201, description: 'The link, with its token (shown only now).', schema: mintedPreviewLinkSchema, examples: { minted: { summary: 'A day-long link', value: minted } } },
  problems: [
    notFound,
    { code: 'validation_failed', when: 'expires_in out of range, or revision_id not a revision of this article.', detail: 'The request body has invalid fields; see errors.', errors: validationErrors(createPreviewLinkSchema, { expires_in: 5 }) },
  ],
})

export const listPreviewLinksOperation = declareOperation({
  method: 'GET',
  path: '/v1/articles/{article_id}/preview-links',
  params: articlePathSchema,
  operationId: 'listPreviewLinks',
  summary: 'List live preview links',
  tags: ['Articles'],
  scope: 'articles:write',
  description: 'The article’s preview links that still work (neither expired nor revoked), newest first; tokens are never shown again.',
  requestParams: { path: articlePathSchema },
  success: { status: 200, description: 'The live links.', schema: previewLinkListSchema, examples: { one: { summary: 'One live link', value: { items: [listed] } } } },
  problems: [notFound],
})

export const revokePreviewLinkOperation = declareOperation({
  method: 'DELETE',
  path: '/v1/articles/{article_id}/preview-links/{preview_link_id}',
  params: previewLinkPathSchema,
  operationId: 'revokePreviewLink',
  summary: 'Revoke a preview link',
  tags: ['Articles'],
  scope: 'articles:write',
  description: 'The link stops working at once (its token answers 404). Revoking is recorded in the audit log; revoking again changes nothing.',
  requestParams: { path: previewLinkPathSchema },
  success: { status: 204, description: 'Revoked; no body.' },
  problems: [notFound],
})

/** GET /v1/preview/{token}: public (the token is the credential), so it is documented by hand. */
const previewPath: ZodOpenApiPathsObject = {
  '/v1/preview/{token}': {
    get: {
      operationId: 'openPreview',
      summary: 'Open a draft preview (no API key)',
      description:
        "For the newsroom's site: the article a preview token was minted for, as it would be published (the stored, sanitised body; the revision's content when the link names one). " +
        'No `Authorization` header: the token is the credential. Answers carry `Cache-Control: no-store` and `X-Robots-Tag: noindex`. ' +
        'An unknown, forged, expired or revoked token is a 404 — never the published version instead.',
      tags: ['Articles'],
      security: [],
      parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The token from `POST /v1/articles/{article_id}/preview-links`.' }],
      responses: {
        '200': {
          description: 'The article as it would be published.',
          headers: {
            ...headerRefs(['X-Request-Id']),
            'Cache-Control': { description: 'Never cache a preview.', required: true, schema: { type: 'string' }, example: 'no-store' },
            'X-Robots-Tag': { description: 'Keep previews out of search engines.', required: true, schema: { type: 'string' }, example: 'noindex' },
          },
          content: { 'application/json': { schema: articleSchema, examples: { draft: { summary: 'A draft, as it would be published', value: previewedDraft } } } },
        },
        '404': {
          description: 'Unknown, forged, expired or revoked token.',
          headers: headerRefs(['X-Request-Id']),
          content: {
            'application/problem+json': {
              schema: { $ref: '#/components/schemas/Problem' },
              examples: { gone: { summary: 'Expired, revoked or forged', value: problemExample('not_found', 'This preview link does not exist, has expired or was revoked. Ask for a new one.') } },
            },
          },
        },
      },
    },
  },
}

export const previewLinkPaths: ZodOpenApiPathsObject = { ...operationPaths([createPreviewLinkOperation, listPreviewLinksOperation, revokePreviewLinkOperation]), ...previewPath }
