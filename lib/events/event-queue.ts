import { processSingleton } from '../process-singleton.ts'

export type OutboxRow = { id: string; tenantId: string; kind: string; occurredAt: Date; data: unknown }

/**
 * Where committed outbox events go next: the port the outbox sends through, so lib/ knows no
 * vendor. inngest/outbox-queue.ts implements it and registers it when imported; every entry
 * point imports it (instrumentation.ts for Next's copy of lib/, scripts/dev.ts for the tsx copy
 * that serves /v1 in development, the tests' setup).
 */
export type EventQueue = {
  /** Whether events can be sent now; the outbox keeps them until then. */
  configured(): boolean
  /** Sends the rows, each under its outbox id (so a re-send is deduplicated); throws if the queue did not take them. */
  send(rows: OutboxRow[]): Promise<void>
  /**
   * Which of the rows something behind the queue would act on (a function's trigger, a
   * subscriber); the others need not be sent. Never answers false for a row that is wanted.
   */
  wanted?(rows: OutboxRow[]): Promise<boolean[]>
}

const registered = processSingleton<{ queue: EventQueue | null }>('event queue', () => ({ queue: null }))

export function registerEventQueue(queue: EventQueue): void {
  registered.queue = queue
}

export function eventQueue(): EventQueue | null {
  return registered.queue
}

/** Whether a queue is registered and can take events now. */
export function queueConfigured(): boolean {
  return registered.queue?.configured() ?? false
}
