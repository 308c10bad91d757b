import { processSingleton } from '../process-singleton.ts'
import { logger } from '../ops/logger.ts'
import { metrics } from '../ops/metrics.ts'

export type PurgeRow = { id: string; data: unknown }

/**
 * Where purges go: one URL taking `PURGE` with the surrogate keys to drop, space-separated, in
 * a `Surrogate-Key` header (the VCL in deploy/varnish answers it with a ban; a CDN's purge
 * endpoint, or a small proxy to one, can take the same request). Unset: no shared cache.
 */
export function contentPurgeUrl(): string | undefined {
  return process.env.CONTENT_PURGE_URL || undefined
}

const keysPerRequest = 100
const purgeTimeoutMs = 2_000

/** Sends the rows' purges; throws when the cache did not take them all (the rows then stay unsent in the outbox). */
export async function sendContentPurges(rows: PurgeRow[]): Promise<void> {
  const url = contentPurgeUrl()
  if (!url) return
  const keys = [...new Set(rows.flatMap((row) => ((row.data as { keys?: string[] }).keys ?? [])))]
  for (let start = 0; start < keys.length; start += keysPerRequest) {
    const batch = keys.slice(start, start + keysPerRequest)
    try {
      const response = await fetch(url, { method: 'PURGE', headers: { 'Surrogate-Key': batch.join(' ') }, signal: AbortSignal.timeout(purgeTimeoutMs) })
      await response.arrayBuffer().catch(() => undefined)
      if (!response.ok) throw new Error(`the purge hook answered ${response.status}`)
    } catch (error) {
      // Counted for the operator's alert (deploy/prometheus/newsroom-alerts.yml); the rows stay unsent.
      metrics.contentPurgeFailures.inc()
      throw error
    }
  }
  metrics.contentPurges.inc(rows.length)
}

// A failed purge is retried by this process soon after (the outbox keeps it meanwhile), not
// only by the once-a-minute outbox sweeper: a cache that was down for a second gets its purges
// a few seconds later.
const retry = processSingleton<{ timer: NodeJS.Timeout | null; delayMs: number }>('purge retry', () => ({ timer: null, delayMs: 1_000 }))

export function retryPurgesSoon(resend: () => Promise<number>): void {
  if (retry.timer) return
  retry.timer = setTimeout(async () => {
    retry.timer = null
    try {
      await resend()
      retry.delayMs = 1_000
    } catch (error) {
      logger.warn({ purge: 'retry_failed', error: (error as Error).message }, 'content purges stay in the outbox')
      retry.delayMs = Math.min(retry.delayMs * 2, 30_000)
      retryPurgesSoon(resend)
    }
  }, retry.delayMs)
  retry.timer.unref()
}
