// Times are shown in UTC, the same on the server and in every browser, so a server-rendered
// table and a client-rendered one agree and nothing shifts on hydration.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
const dateTimeSeconds = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })

export function formatDateTime(iso: string | Date, options: { seconds?: boolean } = {}): string {
  const date = typeof iso === 'string' ? new Date(iso) : iso
  return `${(options.seconds ? dateTimeSeconds : dateTime).format(date)} UTC`
}

export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`
}
