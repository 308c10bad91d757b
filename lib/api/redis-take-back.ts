import type { Redis } from 'ioredis'
import { notSentWhileStalled, onAnsweringAgain } from '../redis.ts'

/**
 * Commands that take back what a rate-limit script counted and nobody used: a reservation or a
 * decision given up on (its timeout, or its answer lost with the connection), a block's unused
 * slots at the end of its lease. Sent at once; when the connection is down at that moment (ioredis
 * fails it at once: no offline queue), sent again once the client is ready, in the order they
 * failed (or once a stalled Redis answers again: lib/redis.ts). Without, the slots stayed counted, unused, for the rest of the window: a busy token got
 * 350 of its 400 after a 2 s cut, and a member with nine typos was locked (break70).
 *
 * Sent again only when that is safe: a command that never left (the stream was not writable) did
 * nothing; one lost with the connection may have run, so only an `idempotent` one (a whole
 * reservation taken out, a log entry removed) is sent again then.
 */
export function takeBack(redis: Redis, command: () => Promise<unknown>, options: { idempotent: boolean }): void {
  command().catch((error: Error) => {
    const neverSent = /isn't writeable|enableOfflineQueue/i.test(error.message) || error.message === notSentWhileStalled
    const lostWithConnection = /Connection is closed/i.test(error.message)
    if (neverSent || (options.idempotent && lostWithConnection)) later(redis, command)
  })
}

// Per client: what waits for its next 'ready'. Bounded: a Redis away for long loses the oldest
// (their slots expire with the window anyway).
const waiting = new WeakMap<Redis, (() => Promise<unknown>)[]>()
const mostWaiting = 10_000

function later(redis: Redis, command: () => Promise<unknown>): void {
  let queue = waiting.get(redis)
  if (!queue) {
    queue = []
    waiting.set(redis, queue)
    onAnsweringAgain(redis, () => {
      const due = waiting.get(redis)!.splice(0)
      for (const again of due) again().catch(() => undefined)
    })
  }
  if (queue.length >= mostWaiting) queue.shift()
  queue.push(command)
}
