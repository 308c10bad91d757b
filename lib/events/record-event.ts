import type { Prisma } from '../db/generated/client.ts'
import { createId } from '../ids.ts'
import type { TenantDb } from '../tenancy/tenant-db.ts'
import type { OutboxEventKind } from './event-kinds.ts'

export type RecordedEvent = { id: string; tenantId: string; kind: OutboxEventKind; occurredAt: Date; data: Prisma.InputJsonObject }

type OutboxWriter = Pick<TenantDb, 'event'>

/**
 * Writes events to the outbox. Call it with the transaction that makes the change, so the
 * change and its events commit together or not at all; forwarding happens after commit.
 */
export async function recordEvents(
  tx: OutboxWriter,
  tenantId: string,
  events: { kind: OutboxEventKind; data: Prisma.InputJsonObject; occurredAt?: Date }[],
): Promise<RecordedEvent[]> {
  if (events.length === 0) return []
  const now = new Date()
  const rows: RecordedEvent[] = events.map((event) => ({
    id: createId('evt'),
    tenantId,
    kind: event.kind,
    occurredAt: event.occurredAt ?? now,
    data: event.data,
  }))
  await tx.event.createMany({ data: rows })
  return rows
}

/** The envelope a subscriber receives (contract: Webhooks). */
export function eventEnvelope(event: { id: string; tenantId: string; kind: string; occurredAt: Date; data: unknown }) {
  return {
    event_id: event.id,
    event: event.kind,
    tenant_id: event.tenantId,
    occurred_at: event.occurredAt.toISOString(),
    data: event.data,
  }
}
