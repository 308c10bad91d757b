'use client'

import { formatLocalInstant, localTimeZone } from '@/lib/time/local-datetime'

/**
 * An instant in the reader's time zone. Rendered only in trees that wait for client-side
 * data, so the server (in its own zone) never renders a different text to hydrate.
 */
export function LocalTime({ iso, withZoneId = false }: { iso: string; withZoneId?: boolean }) {
  const text = formatLocalInstant(iso)
  const zone = localTimeZone()
  // "EST" alone is ambiguous across regions; the IANA name is not, unless it says the same.
  const showZone = withZoneId && !text.endsWith(` ${zone}`)
  return (
    <time dateTime={iso} title={iso}>
      {text}
      {showZone && ` (${zone})`}
    </time>
  )
}
