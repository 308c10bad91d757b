import { mediaUploadIdleMs, mediaUploadMinBytesPerSecond } from '../media/media-limits.ts'

/**
 * How slowly a request body may arrive while it holds a large-body slot (uploads, bulk imports).
 * One rule: once the body's first MEDIA_UPLOAD_IDLE_MS (W) are over, every span of W must bring at
 * least MEDIA_UPLOAD_MIN_BYTES_PER_SECOND × W bytes; a span that brings none is a stall. The body
 * is let go at the moment the span ending now falls short, by a timer when nothing arrives.
 *
 * Why a span, not the stall limit alone or an average since the start: a client sending one byte
 * just inside the stall limit kept its slot until Node's requestTimeout (five minutes), and an
 * average let a burst buy a second of slot per KB (300 KB, then a byte every 29 s, held it as
 * long). Two such clients shut every upload and import of an instance out. The price: a client
 * that sends almost nothing for W and only then starts (a phone whose radio dropped for 28 s right
 * after the headers) is let go at W; it is told why and may send again.
 *
 * One watcher per body, shared by every door that reads one (read-json-body.ts, node-http.ts,
 * media-upload-body.ts), so the limits and their wording are the same everywhere. `tooSlow` is
 * called once, with the end of a sentence: "The upload " + reason + ".".
 */
export type BodyPace = {
  /** Bytes arrived. */
  received(bytes: number): void
  /** The body ended or failed: no more calls. */
  stop(): void
}

// setTimeout fires at once past this (an operator's stall limit of weeks, meant as "off"): a
// timer that far off wakes early and looks again.
const longestTimerMs = 2 ** 31 - 1

export function watchBodyPace(tooSlow: (reason: string) => void, now: () => number = performance.now.bind(performance)): BodyPace {
  const spanMs = mediaUploadIdleMs()
  const minBytesPerSecond = mediaUploadMinBytesPerSecond()
  const leastPerSpan = (minBytesPerSecond * spanMs) / 1000
  const seconds = (spanMs / 1000).toLocaleString('en')
  const startedAt = now()
  // What arrived within the last span, oldest first (from `first` on), and its sum.
  const arrivals: { at: number; bytes: number }[] = []
  let first = 0
  let inSpan = 0
  // The newest arrivals that make up the least (from `newestFrom` on, summing `newestSum`), kept
  // as each chunk arrives: the span falls short when the oldest of them leaves it. Moved forward
  // only, so a chunk costs the same however small the chunks are.
  let newestFrom = 0
  let newestSum = 0
  let stopped = false
  let timer: NodeJS.Timeout | undefined

  const forgetBefore = (at: number) => {
    while (first < arrivals.length && arrivals[first]!.at <= at - spanMs) inSpan -= arrivals[first++]!.bytes
    if (newestFrom < first) {
      newestFrom = first
      newestSum = inSpan
    }
    // Compacted now and then, so a long body keeps only its last span.
    if (first > 64 && first * 2 > arrivals.length) {
      arrivals.splice(0, first)
      newestFrom -= first
      first = 0
    }
  }
  const give = (reason: string) => {
    stop()
    tooSlow(reason)
  }
  /**
   * When the span ending then would fall short if nothing more arrived: the end of the first
   * span, or when the oldest of the newest arrivals that still make up the least has left it.
   * Kept as chunks arrive (newestFrom): a walk over the span's chunks on every chunk cost 2.4 ms
   * of CPU for a 25 MB upload in 16 KB chunks (from the oldest), and a client sending 32-byte
   * chunks fast made even a walk from the newest visit a thousand chunks each time.
   */
  const nextLook = (at: number): number => {
    const fallsShortAt = newestSum < leastPerSpan ? at : arrivals[newestFrom]!.at + spanMs
    return Math.max(startedAt + spanMs, fallsShortAt)
  }
  const look = () => {
    if (stopped) return
    const at = now()
    forgetBefore(at)
    if (at - startedAt >= spanMs && inSpan < leastPerSpan) {
      return give(inSpan === 0 ? `stalled: no data arrived for ${seconds} s` : `arrived too slowly: under ${minBytesPerSecond.toLocaleString('en')} bytes a second over the last ${seconds} s`)
    }
    clearTimeout(timer)
    timer = setTimeout(look, Math.min(longestTimerMs, Math.max(1, Math.ceil(nextLook(at) - at))))
  }
  const stop = () => {
    stopped = true
    clearTimeout(timer)
  }
  look()
  return {
    received(bytes) {
      if (stopped) return
      arrivals.push({ at: now(), bytes })
      inSpan += bytes
      newestSum += bytes
      while (newestFrom < arrivals.length - 1 && newestSum - arrivals[newestFrom]!.bytes >= leastPerSpan) newestSum -= arrivals[newestFrom++]!.bytes
      look()
    },
    stop,
  }
}
