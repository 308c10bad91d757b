import { accessLog, accessLogLine, type AccessLogFields } from './access-log.ts'
import { requestLogger } from './logger.ts'
import { metrics } from './metrics.ts'
import { hotSetting } from '../config/hot-setting.ts'
import { CounterSeries, HistogramSeries } from './bound-series.ts'
import { processSingleton } from '../process-singleton.ts'

export type ApiRequestObservation = AccessLogFields

/**
 * One log line and the request metrics for each answered /v1 request. Only the route template,
 * never the query string or body: those may carry secrets or article text.
 */
export function observeApiRequest(observation: ApiRequestObservation): void {
  const { route } = observation
  const bound = seriesOf(route, observation.method)
  let requests = bound.requests.get(observation.status)
  if (requests === undefined) bound.requests.set(observation.status, (requests = new CounterSeries(metrics.apiRequests, { route, method: observation.method, status: String(observation.status) })))
  requests.inc()
  bound.duration.observe(observation.durationMs / 1000)
  if (observation.status === 429) metrics.rateLimitRejections.inc({ caller: observation.tokenId ? 'token' : 'unauthenticated' })
  if (!accessLog.enabled()) return
  const line = accessLogLine(observation, Date.now())
  // `npm run dev` prints lines for people (lib/ops/logger.ts): the same fields, through its logger.
  if (hotSetting('NODE_ENV') === 'development') {
    const { level: _level, time: _time, msg, ...fields } = JSON.parse(line) as Record<string, unknown>
    requestLogger.info(fields, String(msg))
  } else {
    accessLog.append(line)
  }
}

type RouteSeries = { duration: HistogramSeries; requests: Map<number, CounterSeries> }

// Each route and method's series, found once (bound-series.ts): as many as the series themselves.
const boundSeries = processSingleton('api request metric series', () => new Map<string, Map<string, RouteSeries>>())

function seriesOf(route: string, method: string): RouteSeries {
  let byMethod = boundSeries.get(route)
  if (byMethod === undefined) boundSeries.set(route, (byMethod = new Map()))
  let series = byMethod.get(method)
  if (series === undefined) byMethod.set(method, (series = { duration: new HistogramSeries(metrics.apiDuration, { route, method }), requests: new Map() }))
  return series
}
