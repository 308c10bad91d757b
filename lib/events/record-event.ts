import type { Prisma } from '../db/generated/client.ts'
import { createId } from '../ids.ts'
import type { TenantDb } from '../tenancy/tenant-db.ts'
import type { OutboxEventKind } from './event-kinds.ts'

export type RecordedEvent = { id: string; tenantId: string; kind: OutboxEventKind; occurredAt: Date; data: Prisma.InputJsonObject }

type OutboxWriter = Pick<TenantDb, 'event'>

/**
 * Writes events to the outbox in the transaction that makes the change, so the change and its
 * events commit together or not at all. Changes emit through commitChange (commit-change.ts),
 * which also hands them on after commit; tests call this directly to seed the outbox.
 */
export type EventInput = { kind: OutboxEventKind; data: Prisma.InputJsonObject; occurredAt?: Date }

export async function recordEvents(tx: OutboxWriter, tenantId: string, events: EventInput[]): Promise<RecordedEvent[]> {
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
