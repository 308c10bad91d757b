import type { Prisma } from '../db/generated/client.ts'
import { createId } from '../ids.ts'
import type { SqlTransaction } from '../db/sql-transaction.ts'
import type { OutboxEventKind } from './event-kinds.ts'

export type RecordedEvent = { id: string; tenantId: string; kind: OutboxEventKind; occurredAt: Date; data: Prisma.InputJsonObject }

type OutboxWriter = Pick<SqlTransaction, '$executeRaw'>

/**
 * Writes events to the outbox in the transaction that makes the change, so the change and its
 * events commit together or not at all. Changes emit through commitChange (commit-change.ts),
 * which also hands them on after commit; tests call this directly to seed the outbox.
 */
export type EventInput = { kind: OutboxEventKind; data: Prisma.InputJsonObject; occurredAt?: Date }

/** The outbox rows for these events: each its own id, and the instant it happened (now unless given). */
export function toRecordedEvents(tenantId: string, events: EventInput[]): RecordedEvent[] {
  const now = new Date()
  return events.map((event) => ({ id: createId('evt'), tenantId, kind: event.kind, occurredAt: event.occurredAt ?? now, data: event.data }))
}

export async function recordEvents(tx: OutboxWriter, tenantId: string, events: EventInput[]): Promise<RecordedEvent[]> {
  if (events.length === 0) return []
  const rows = toRecordedEvents(tenantId, events)
  // One statement with one parameter, decoded by PostgreSQL: cheaper per write than Prisma's
  // createMany, which compiles and binds every column of every row.
  await tx.$executeRaw`
    INSERT INTO events (id, tenant_id, kind, occurred_at, data)
    SELECT id, "tenantId", kind, "occurredAt", data
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS e(id text, "tenantId" text, kind text, "occurredAt" timestamptz, data jsonb)`
  return rows
}
