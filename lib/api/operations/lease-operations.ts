import { declareOperation, operationPaths, type ProblemCase } from '../openapi/api-operation.ts'
import { articlePathSchema } from '../../articles/article-schemas.ts'
import { claimLeaseQuerySchema, leaseClaimSchema } from '../../articles/lease-schemas.ts'
import { leaseHeartbeatSeconds, leaseSeconds } from '../../articles/edit-lease.ts'

// Edit leases for integrations that edit interactively (an editor of their own): the portal's
// editor takes the same lease through tRPC (lib/articles/edit-lease.ts holds the rules).

const lock = { holder_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e', holder_name: 'Edith Hale', since: '2026-11-20T22:41:00.000Z', expires_at: '2026-11-20T22:47:30.000Z' }

const notFound: ProblemCase = {
  code: 'not_found',
  when: "No article with this id in the token's newsroom.",
  detail: "No article with id 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom.",
}

export const claimLeaseOperation = declareOperation({
  method: 'POST',
  path: '/v1/articles/{article_id}/lock',
  params: articlePathSchema,
  query: claimLeaseQuerySchema,
  operationId: 'claimArticleLock',
  summary: 'Take or renew the edit lease',
  tags: ['Articles'],
  scope: 'articles:write',
  description: [
    `Takes the article's edit lease for the token's owner, or renews it when they hold it: it holds for ${leaseSeconds / 60} minutes from now. Renew it (call again) about every ${leaseHeartbeatSeconds} seconds while your editor is open, and \`DELETE\` it when done. No body.`,
    '',
    "While the lease is live, writes by anyone else (PATCH, transitions, the portal's saves and moves) are refused with 409 `article_locked` naming the holder and `expires_at`, unless they send `override_lock: true`. A lapsed lease blocks nothing and is taken over by the next claim.",
    '',
    "Two claims racing for a free article cannot both win: one gets the lease, the other a 409 `article_locked`. Someone else's live lease is only taken with `?take_over=true`, which is recorded in the article's notes and the audit log; the former holder's next renewal or write is refused.",
    '',
    'A lease is not a change of the article: it moves neither `version` nor the `ETag`, and sends no webhook. The article record (`GET /v1/articles/{article_id}`) shows it as `lock`.',
  ].join('\n'),
  requestParams: { path: articlePathSchema, query: claimLeaseQuerySchema },
  success: {
    status: 200,
    description: 'The lease, now held by the token’s owner.',
    schema: leaseClaimSchema,
    examples: {
      claimed: { summary: 'Claimed (or renewed)', value: { lock, took_over_from: null } },
      tookOver: { summary: 'Taken over from someone else', value: { lock: { ...lock, holder_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4f', holder_name: 'Lois Lane' }, took_over_from: { id: lock.holder_id, name: lock.holder_name } } },
    },
  },
  problems: [
    notFound,
    {
      code: 'forbidden',
      when: "The token's owner may not edit this article (a writer and someone else's article, or an article that left review), or the article is archived.",
      detail: 'A writer can change only their own articles; ask an editor to change this one.',
    },
    {
      code: 'article_locked',
      when: 'Someone else holds a live lease and `take_over` was not asked.',
      detail: 'Edith Hale is editing this article (since 22:41 UTC; their lease runs until 22:47 UTC unless renewed). Nothing was changed. Wait, ask them, or take over the article (the API: send override_lock: true to write anyway, which is recorded).',
      extra: lock,
    },
  ],
})

export const releaseLeaseOperation = declareOperation({
  method: 'DELETE',
  path: '/v1/articles/{article_id}/lock',
  params: articlePathSchema,
  operationId: 'releaseArticleLock',
  summary: 'Release the edit lease',
  tags: ['Articles'],
  scope: 'articles:write',
  description: "Ends the token owner's lease on the article, so others may edit it at once. Someone else's lease is left alone (no error): releasing is always safe to repeat.",
  requestParams: { path: articlePathSchema },
  success: { status: 204, description: 'Released (or there was no lease of yours); no body.' },
  problems: [notFound],
})

export const leasePaths = operationPaths([claimLeaseOperation, releaseLeaseOperation])
