/**
 * The time the service's main thread spent in V8's collector, as its own /metrics says
 * (prom-client's `nodejs_gc_duration_seconds`, every pause of every kind, from Node's `gc`
 * performance entries): read before and after a row, the difference over the process's CPU time
 * in that row is the collector's share of it (issue 50: under 10 % for the cold list at 1M).
 * The process's CPU counts its helper threads too (concurrent marking among them), so this share
 * is of everything the service spent, not only of its main thread.
 */

/** The seconds of collection a Prometheus exposition reports, summed over kinds. */
export function gcSecondsIn(exposition: string): number {
  let seconds = 0
  for (const line of exposition.split('\n')) {
    if (!line.startsWith('nodejs_gc_duration_seconds_sum')) continue
    const value = Number(line.slice(line.lastIndexOf(' ') + 1))
    if (Number.isFinite(value)) seconds += value
  }
  return seconds
}

/** The service's collector seconds so far, from its /metrics (METRICS_TOKEN set for it). */
export async function gcSecondsOf(serviceUrl: string, metricsToken: string): Promise<number> {
  const response = await fetch(`${serviceUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`)
  return gcSecondsIn(await response.text())
}

/** The collector's share of `cpuMicrosecondsPerRequest × requests`, from two readings. */
export function gcShare(gcSecondsBefore: number, gcSecondsAfter: number, cpuMicrosecondsPerRequest: number, requests: number): number | undefined {
  const cpuSeconds = (cpuMicrosecondsPerRequest * requests) / 1e6
  return cpuSeconds > 0 ? (gcSecondsAfter - gcSecondsBefore) / cpuSeconds : undefined
}
