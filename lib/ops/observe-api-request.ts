import { accessLog, accessLogLine, type AccessLogFields } from './access-log.ts'
import { requestLogger } from './logger.ts'
import { metrics } from './metrics.ts'
import { hotSetting } from '../config/hot-setting.ts'

export type ApiRequestObservation = AccessLogFields

/**
 * One log line and the request metrics for each answered /v1 request. Only the route template,
 * never the query string or body: those may carry secrets or article text.
 */
export function observeApiRequest(observation: ApiRequestObservation): void {
  const { route } = observation
  metrics.apiRequests.inc({ route, method: observation.method, status: String(observation.status) })
  metrics.apiDuration.observe({ route, method: observation.method }, observation.durationMs / 1000)
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
