/**
 * The envelope a subscriber receives (contract: Webhooks), the one definition: webhook bodies
 * are made by eventEnvelope, and the queue carries the same shape.
 */
export type EventEnvelope<Data = unknown> = {
  event_id: string
  event: string
  tenant_id: string
  occurred_at: string
  data: Data
  /** Set only in the queue's copy, when `data` was too large to travel and must be read from the outbox row. */
  data_omitted?: boolean
}

export function eventEnvelope(event: { id: string; tenantId: string; kind: string; occurredAt: Date; data: unknown }): EventEnvelope {
  return {
    event_id: event.id,
    event: event.kind,
    tenant_id: event.tenantId,
    occurred_at: event.occurredAt.toISOString(),
    data: event.data,
  }
}
