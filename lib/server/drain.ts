import { queueHandOffSettled } from '../events/queue-hand-off.ts'
import { flushRequestLog } from '../request-log/record-api-request.ts'

/**
 * What a stopping server finishes after its last response: the request log's buffered entries
 * are written and events being handed to the queue are sent (or left to the sweeper).
 * Bounded, so a database or queue that is away cannot hold the shutdown.
 */
export async function drainBeforeExit(timeoutMs = 5_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs)
    timer.unref()
  })
  await Promise.race([Promise.all([flushRequestLog(), queueHandOffSettled()]), deadline])
  clearTimeout(timer)
}
