import type { Prisma } from './db/generated/client.ts'
import { createId } from './ids.ts'

export type AuditAction =
  | 'api_token.created'
  | 'api_token.revoked'
  | 'content_key.created'
  | 'content_key.revoked'
  | 'api_token.renamed'
  | 'api_token.rolled'
  | 'api_token.allowlist_changed'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'webhook.reenabled'
  | 'webhook.secret_rotated'
  | 'webhook.paused'
  | 'webhook.resumed'
  | 'webhook.disabled'
  | 'user.created'
  | 'user.role_changed'
  | 'user.deactivated'
  | 'user.password_changed'
  | 'user.sessions_ended'
  | 'article.lock_taken_over'
  | 'article.lock_overridden'
  | 'preview_link.created'
  | 'preview_link.revoked'
  | 'tenant.search_language_changed'
  | 'sso.updated'
  | 'sso.sign_in_refused'
  | 'sso.sign_in_failed'
  | 'sso.recovery_sign_in'
  | 'passkey.added'
  | 'passkey.renamed'
  | 'passkey.removed'
  | 'two_factor.totp_enrolled'
  | 'two_factor.totp_removed'
  | 'two_factor.recovery_codes_regenerated'
  | 'two_factor.recovery_code_used'
  | 'two_factor.policy_changed'
  | 'user.factors_reset'
  | 'two_factor.sign_in_locked'
  | 'tenant.created'
  | 'tenant.export_started'
  | 'tenant.exported'
  | 'tenant.imported'
  | 'user.sign_in_failed'
  | 'user.sign_in_locked'
  | 'user.sign_in_unlocked'

// Any client or transaction, tenant-scoped or not: jobs that act for the system audit too.
type AuditWriter = { auditEntry: { create(args: { data: Prisma.AuditEntryUncheckedCreateInput }): PromiseLike<unknown> } }

/** Records who did a security-relevant thing; call it inside the change's own transaction. */
export async function recordAudit(
  tx: AuditWriter,
  entry: { tenantId: string; actorId: string | null; action: AuditAction; targetType: string; targetId: string; metadata?: Prisma.InputJsonObject },
): Promise<string> {
  const id = createId('aud')
  await tx.auditEntry.create({
    data: {
      id,
      tenantId: entry.tenantId,
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      metadata: entry.metadata ?? {},
    },
  })
  return id
}
