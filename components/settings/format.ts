// Instants are shown by components/local-time.tsx, the portal's one date format.

export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`
}
