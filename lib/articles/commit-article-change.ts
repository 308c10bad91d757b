import { commitChange, type ChangeTransaction, type Emit } from '../events/commit-change.ts'
import type { TenantDb } from '../tenancy/tenant-db.ts'
import { articlesChanged } from './article-totals.ts'

/**
 * A change to articles and its events, committed as one unit (commitChange) with the articles'
 * own after-commit step: the tenant's article generation advances before the writer answers, so
 * cached totals and cached answers (lib/api/response-cache.ts) never outlive the change. Every
 * article write goes through here; importing it is what guarantees the step runs in any process
 * that writes articles, which a hook registered when some other module loads would not.
 */
export function commitArticleChange<T>(tdb: TenantDb, tenantId: string, change: (tx: ChangeTransaction, emit: Emit) => Promise<T>): Promise<T> {
  return commitChange(tdb, tenantId, change, { afterCommit: () => articlesChanged([tenantId]) })
}
