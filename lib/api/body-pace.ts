import { mediaUploadIdleMs, mediaUploadMinBytesPerSecond } from '../media/media-limits.ts'

/**
 * How slowly a request body may arrive while it holds a large-body slot (uploads, bulk imports):
 * no byte for MEDIA_UPLOAD_IDLE_MS, or, once that long has passed since the body began, an
 * average under MEDIA_UPLOAD_MIN_BYTES_PER_SECOND, and it is let go. The stall limit alone let a
 * client send one byte just inside it, every 29 s, and keep its slot until Node's requestTimeout
 * (five minutes), then take it again on reconnect: two such clients shut every upload out.
 *
 * One watcher per body, shared by every door that reads one (read-json-body.ts, node-http.ts,
 * media-upload-body.ts), so the limits and their wording are the same everywhere. `tooSlow` is
 * called once, with the end of a sentence: "The upload " + reason + ".".
 */
export type BodyPace = {
  /** Bytes arrived: the stall clock starts again, and the average is checked. */
  received(bytes: number): void
  /** The body ended or failed: no more calls. */
  stop(): void
}

const longestTimerMs = 2 ** 31 - 1

export function watchBodyPace(tooSlow: (reason: string) => void, now: () => number = performance.now.bind(performance)): BodyPace {
  const idleMs = mediaUploadIdleMs()
  const minBytesPerSecond = mediaUploadMinBytesPerSecond()
  const startedAt = now()
  let total = 0
  let lastAt = startedAt
  let stopped = false
  let idle: NodeJS.Timeout | undefined
  const give = (reason: string) => {
    if (stopped) return
    stop()
    tooSlow(reason)
  }
  const slow = `arrived too slowly: under ${minBytesPerSecond.toLocaleString('en')} bytes a second on average after the first ${(idleMs / 1000).toLocaleString('en')} s`
  const tooSlowNow = () => {
    const elapsedMs = now() - startedAt
    return elapsedMs > idleMs && total < (minBytesPerSecond * elapsedMs) / 1000
  }
  // The next time the body must be let go if nothing more arrives: a stall, or, sooner, the
  // moment its average falls under the floor (checked then, not only at its next byte, which may
  // come up to a stall later).
  const arm = () => {
    clearTimeout(idle)
    const underFloorInMs = Math.max(idleMs, (total * 1000) / minBytesPerSecond) - (now() - startedAt)
    const stallInMs = lastAt + idleMs - now()
    // setTimeout fires at once past 2^31 - 1 ms (an operator's "off" of weeks): such a timer wakes early and looks again.
    if (underFloorInMs >= stallInMs) {
      idle = setTimeout(() => (now() - lastAt >= idleMs ? give(`stalled: no data arrived for ${(idleMs / 1000).toLocaleString('en')} s`) : arm()), Math.min(longestTimerMs, Math.max(0, Math.ceil(stallInMs))))
    } else {
      idle = setTimeout(() => (tooSlowNow() ? give(slow) : arm()), Math.min(longestTimerMs, Math.max(0, Math.ceil(underFloorInMs)) + 1))
    }
  }
  const stop = () => {
    stopped = true
    clearTimeout(idle)
  }
  arm()
  return {
    received(bytes) {
      if (stopped) return
      total += bytes
      lastAt = now()
      // Checked as bytes arrive, and by the timer when none do (arm).
      if (tooSlowNow()) return give(slow)
      arm()
    },
    stop,
  }
}
