'use client'

import { useSyncExternalStore } from 'react'
import { formatLocalInstant, formatUtcInstant, localTimeZone } from '@/lib/time/local-datetime'

const neverChanges = () => () => undefined

/** True when rendering in the browser; false on the server and while hydrating its HTML. */
function useInBrowser(): boolean {
  return useSyncExternalStore(neverChanges, () => true, () => false)
}

/**
 * Every instant the portal shows, in one format: date and time in the reader's own time zone
 * with the zone's name, the exact instant on hover. The server knows no reader's zone, so
 * server-rendered HTML says UTC and the browser puts its own zone in right after hydration (a
 * tree rendered in the browser shows local time at once).
 */
export function LocalTime({ iso, withZoneId = false, seconds = false }: { iso: string | Date; withZoneId?: boolean; seconds?: boolean }) {
  const inBrowser = useInBrowser()
  const instant = typeof iso === 'string' ? iso : iso.toISOString()
  if (!inBrowser) {
    return (
      <time dateTime={instant} title={instant}>
        {formatUtcInstant(instant, undefined, { seconds })}
      </time>
    )
  }
  const text = formatLocalInstant(instant, undefined, { seconds })
  const zone = localTimeZone()
  // "EST" alone is ambiguous across regions; the IANA name is not, unless it says the same.
  const showZone = withZoneId && !text.endsWith(` ${zone}`)
  return (
    <time dateTime={instant} title={instant}>
      {text}
      {showZone && ` (${zone})`}
    </time>
  )
}
