import type { ApiRequest, Prisma } from '../db/generated/client.ts'
import { newestFirstPage } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import type { ApiRequestRecord, ListApiRequestsQuery } from './request-log-schemas.ts'

function statusRange(status: string): Prisma.IntFilter {
  if (status.endsWith('xx')) {
    const from = Number(status[0]) * 100
    return { gte: from, lt: from + 100 }
  }
  return { equals: Number(status) }
}

/** A newsroom's recorded /v1 requests, newest first, filtered by key, request id and status. */
export async function listApiRequests(actor: Actor, query: ListApiRequestsQuery): Promise<Page<ApiRequest>> {
  assertCan(actor, 'admin')
  const tenantId = actor.tenant.id
  const where: Prisma.ApiRequestWhereInput = {
    ...(query.token_id && { tokenId: query.token_id }),
    ...(query.request_id && { id: query.request_id }),
    ...(query.status && { status: statusRange(query.status) }),
  }
  const tdb = tenantDb(tenantId)
  const { limit: _limit, offset: _offset, cursor: _cursor, ...filter } = query
  return newestFirstPage({ tenantId, list: 'requests', filter }, query, (row) => row.createdAt.getTime(), (after) =>
    Promise.all([
      tdb.apiRequest.findMany({ where: { ...where, ...(after ? { OR: [{ createdAt: { lt: new Date(after.key) } }, { createdAt: new Date(after.key), id: { lt: after.id } }] } : {}) }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: after ? 0 : query.offset, take: query.limit }),
      tdb.apiRequest.count({ where }),
    ]),
  )
}

export function toApiRequestRecord(entry: ApiRequest): ApiRequestRecord {
  return {
    request_id: entry.id,
    token_id: entry.tokenId,
    method: entry.method,
    route: entry.route,
    query_keys: entry.queryKeys,
    status: entry.status,
    problem_code: entry.problemCode,
    duration_ms: entry.durationMs,
    client_address: entry.clientAddress,
    created_at: entry.createdAt.toISOString(),
  }
}
