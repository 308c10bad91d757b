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
  // `npm run dev` prints lines for people (lib/ops/logger.ts); elsewhere the line is JSON, made by hand.
  if (hotSetting('NODE_ENV') === 'development') {
    requestLogger.info(
      {
        request_id: observation.requestId,
        tenant_id: observation.tenantId,
        token_id: observation.tokenId,
        method: observation.method,
        route,
        status: observation.status,
        duration_ms: Math.round(observation.durationMs * 10) / 10,
        ...(observation.problemCode && { problem: observation.problemCode }),
      },
      'api request',
    )
  } else if (accessLog.enabled()) {
    accessLog.append(accessLogLine(observation, Date.now()))
  }
}
