import type { Prisma } from './db/generated/client.ts'
import { createId } from './ids.ts'
import type { TenantDb } from './tenancy/tenant-db.ts'

export type AuditAction =
  | 'api_token.created'
  | 'api_token.revoked'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'webhook.reenabled'
  | 'user.created'
  | 'user.role_changed'
  | 'user.deactivated'

type AuditWriter = Pick<TenantDb, 'auditEntry'>

/** Records who did a security-relevant thing; call it inside the change's own transaction. */
export async function recordAudit(
  tx: AuditWriter,
  entry: { tenantId: string; actorId: string | null; action: AuditAction; targetType: string; targetId: string; metadata?: Prisma.InputJsonObject },
): Promise<void> {
  await tx.auditEntry.create({
    data: {
      id: createId('aud'),
      tenantId: entry.tenantId,
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      metadata: entry.metadata ?? {},
    },
  })
}
